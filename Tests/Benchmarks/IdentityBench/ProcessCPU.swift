import Foundation

/// CPU seconds (user + system) a process has used, from /proc/<pid>/stat.
enum ProcessCPU {
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// nil when the process or /proc is not there.
    static func seconds(pid: Int32?) -> Double? {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after the command name: state is field 3, utime 14 and stime 15 (proc(5)).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }

    /// CPU seconds of `root` and its children (a postmaster and its backends and workers):
    /// nil when `root` is not there.
    static func treeSeconds(root: Int32) -> Double? {
        guard let own = seconds(pid: root) else { return nil }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return own + entries.compactMap(Int32.init).reduce(0) { total, pid in
            guard parent(of: pid) == root else { return total }
            return total + (seconds(pid: pid) ?? 0)
        }
    }

    /// The parent pid of `pid` (field 4 of /proc/<pid>/stat).
    static func parent(of pid: Int32) -> Int32? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
}
