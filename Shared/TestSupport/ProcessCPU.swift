import Foundation

/// CPU seconds (user + system) a process has used, from /proc/<pid>/stat.
package enum ProcessCPU {
    package static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// nil when the process or /proc is not there.
    package static func seconds(pid: Int32?) -> Double? {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after the command name: state is field 3, utime 14 and stime 15 (proc(5)).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }
}

extension ProcessCPU {
    /// CPU seconds of the machine's Postgres: every live `postgres` process (postmaster and
    /// backends) plus what its exited backends used (the postmaster's reaped children's time,
    /// fields 16 and 17), so backends that come and go between two readings still count.
    package static func postgresSeconds() -> Double {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        var total = 0.0
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                  stat[stat.index(after: open)..<close] == "postgres" else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 14, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            total += user + system
            // The postmaster is the postgres process whose parent is not one: its children's time.
            if let parent = Int32(fields[1]), !isPostgres(parent),
               let childUser = Double(fields[13]), let childSystem = Double(fields[14]) {
                total += childUser + childSystem
            }
        }
        return total / ticksPerSecond
    }

    private static func isPostgres(_ pid: Int32) -> Bool {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("postgres") ?? false
    }
}
