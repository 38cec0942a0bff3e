#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where finished log lines go; each call receives one whole line, newline included.
package struct LogSink: Sendable {
    /// Writes one line.
    package let write: @Sendable (String) -> Void

    /// A sink calling `write` for every line (tests capture lines this way).
    package init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Standard error, one `write(2)` per line under a process-wide lock so lines never interleave.
    package static let standardError = LogSink { line in
        standardErrorLock.withLock { _ in
            var line = line
            line.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    // Safe: `offset` stays within `bytes`.
                    let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
    }

    private static let standardErrorLock = Mutex(())
}
