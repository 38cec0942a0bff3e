import Foundation

/// Memory figures of the current process, from /proc/self/status.
package enum ProcessMemory {
    /// Resident set size in bytes (VmRSS), or 0 where /proc is unavailable.
    package static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.dropFirst("VmRSS:".count).filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
        return 0
    }
}
