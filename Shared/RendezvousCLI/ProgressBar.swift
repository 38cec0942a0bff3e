import Foundation
import Synchronization

/// A one-line progress bar on stderr (`photo.jpg [██████░░░░] 61% 1.2/2.0 MB`), redrawn in place;
/// does nothing when disabled (not a terminal, or --json).
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let label: String
    private let lastPercent = Mutex(-1)

    init(enabled: Bool, label: String) {
        self.enabled = enabled
        self.label = label
    }

    func update(sent: Int64, total: Int64) {
        guard enabled, total > 0 else { return }
        let percent = Int(sent * 100 / total)
        let changed = lastPercent.withLock { last in
            defer { last = percent }
            return last != percent
        }
        guard changed else { return }
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let megabytes = String(format: "%.1f/%.1f MB", Double(sent) / 1e6, Double(total) / 1e6)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)% \(megabytes)\u{1B}[K".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
