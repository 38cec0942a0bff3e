#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Where finished log lines go; each call receives one whole line, newline included.
package struct LogSink: Sendable {
    /// Takes one line. It may reach its destination a little later: `flush` waits for it.
    package let write: @Sendable (String) -> Void
    /// Returns once every line taken so far has been written.
    package let flush: @Sendable () -> Void

    /// A sink calling `write` for every line (tests capture lines this way).
    package init(write: @escaping @Sendable (String) -> Void, flush: @escaping @Sendable () -> Void = {}) {
        self.write = write
        self.flush = flush
    }

    /// Standard error through a `LogLineBuffer`: a logged call copies its line into memory, and a
    /// writer thread writes what gathered with one `write(2)`, where each line used to be a
    /// system call of its own under a process-wide lock (the loops took turns on it). Lines keep
    /// their order and never interleave. `StructuredLogHandler` flushes after every line above
    /// info (notices, warnings, errors), and `ServiceMain` before the process exits, so a line
    /// explaining trouble is out before anything else happens; a process killed outright loses at
    /// most the last milliseconds of info lines.
    package static let standardError: LogSink = {
        let buffer = LogLineBuffer(descriptor: 2)
        return LogSink(write: { buffer.append($0) }, flush: { buffer.flush() })
    }()
}

/// Lines waiting for one descriptor, and the thread that writes them.
///
/// `append` copies a line into `pending` and wakes the writer if it sleeps; the writer takes
/// everything pending at once. While it writes, more lines gather for its next write, so a busy
/// process makes few large writes and an idle one a write a line, as before. Past `limit` pending
/// bytes (a reader that does not keep up) the appending thread writes itself: it waits, as every
/// logging thread used to, rather than memory growing without bound.
final class LogLineBuffer: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        /// Written-out bytes handed back for reuse (empty, with their capacity).
        var spare: [UInt8] = []
        /// The writer was told there is work and has not taken it yet.
        var signalled = false
    }

    private let descriptor: Int32
    private let limit: Int
    /// How long the writer, once woken, lets lines gather before it writes them.
    private let gatherMicroseconds: UInt32
    private let pending = Mutex(Pending())
    /// Held while writing: whoever takes pending bytes writes them before the next taker can.
    private let writing = Mutex(())
    private let wakeup = NSCondition()

    init(descriptor: Int32, limit: Int = 1 << 20, gather: Duration = .milliseconds(5)) {
        self.descriptor = descriptor
        self.limit = limit
        self.gatherMicroseconds = UInt32(gather.components.seconds * 1_000_000 + gather.components.attoseconds / 1_000_000_000_000)
        let thread = Thread { [self] in self.writeLoop() }
        thread.name = "rv-log-writer"
        thread.start()
    }

    func append(_ line: String) {
        var line = line
        let (wake, full) = line.withUTF8 { utf8 in
            pending.withLock { pending -> (Bool, Bool) in
                pending.bytes.append(contentsOf: utf8)
                if pending.bytes.count > limit { return (false, true) }
                guard !pending.signalled else { return (false, false) }
                pending.signalled = true
                return (true, false)
            }
        }
        if full {
            flush()
        } else if wake {
            wakeup.lock()
            wakeup.signal()
            wakeup.unlock()
        }
    }

    /// Writes what is pending; returns once every line appended before the call is written.
    func flush() {
        writing.withLock { _ in
            var bytes = pending.withLock { pending -> [UInt8] in
                let taken = pending.bytes
                pending.bytes = pending.spare
                pending.spare = []
                return taken
            }
            guard !bytes.isEmpty else { return }
            write(bytes)
            bytes.removeAll(keepingCapacity: bytes.capacity <= 256 << 10)
            pending.withLock { $0.spare = bytes }
        }
    }

    private func writeLoop() {
        while true {
            wakeup.lock()
            while !pending.withLock({ $0.signalled }) { wakeup.wait() }
            wakeup.unlock()
            // Lines arriving in the next moments join this write without waking anyone: woken for
            // every line, the writer cost a busy process more than each line's own write did.
            usleep(gatherMicroseconds)
            // Cleared before taking the bytes: a line appended from here on signals again.
            pending.withLock { $0.signalled = false }
            flush()
        }
    }

    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // Safe: `offset` stays within `buffer`.
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
