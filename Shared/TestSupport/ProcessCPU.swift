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
}
