import Foundation

/// CPU seconds (user + system) a process has used, from /proc/<pid>/stat.
package enum ProcessCPU {
    package static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// nil when the process or /proc is not there.
    package static func seconds(pid: Int32?) -> Double? {
        // utime is field 14 and stime 15 (proc(5)).
        guard let (_, fields) = statFields(pid), fields.count > 12, let user = Double(fields[11]),
              let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }

    /// /proc/<pid>/stat (or the caller's own when nil): the command, and the fields after it,
    /// the state (field 3 in proc(5)) first. The command may hold spaces and parentheses, so it
    /// ends at the last ")". nil when the process or /proc is not there.
    package static func statFields(_ pid: Int32?) -> (command: Substring, fields: [Substring])? {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        return (text[text.index(after: open)..<close], text[text.index(after: close)...].split(separator: " "))
    }
}

extension ProcessCPU {
    /// CPU seconds of a Postgres cluster: its postmaster (`postmaster`, or every postmaster on
    /// the machine when nil), every live process under it (backends, workers) and what its exited
    /// backends used (the postmaster's reaped children's time, fields 16 and 17), so backends
    /// that come and go between two readings still count.
    package static func postgresSeconds(postmaster: Int32? = nil) -> Double {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        var total = 0.0
        for entry in entries {
            guard let pid = Int32(entry), let stat = stat(pid), stat.command == "postgres" else { continue }
            let isPostmaster = !isPostgres(stat.parent)
            guard postmaster == nil || pid == postmaster || stat.parent == postmaster else { continue }
            total += stat.own
            if isPostmaster { total += stat.reapedChildren }
        }
        return total / ticksPerSecond
    }

    /// Fields of /proc/<pid>/stat (proc(5)): the command, the parent (field 4), utime + stime
    /// (14, 15) and cutime + cstime (16, 17), in clock ticks.
    private static func stat(_ pid: Int32) -> (command: Substring, parent: Int32, own: Double, reapedChildren: Double)? {
        guard let (command, fields) = statFields(pid), fields.count > 14, let parent = Int32(fields[1]),
              let user = Double(fields[11]), let system = Double(fields[12]),
              let childUser = Double(fields[13]), let childSystem = Double(fields[14]) else { return nil }
        return (command, parent, user + system, childUser + childSystem)
    }

    private static func isPostgres(_ pid: Int32) -> Bool {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("postgres") ?? false
    }
}
