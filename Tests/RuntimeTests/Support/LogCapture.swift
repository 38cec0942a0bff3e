import Logging
import Runtime
import Synchronization

/// Collects the lines a `StructuredLogHandler` writes.
final class LogCapture: Sendable {
    private let storage = Mutex<[String]>([])

    var lines: [String] { storage.withLock { $0 } }

    var sink: LogSink { LogSink { [self] line in storage.withLock { $0.append(line) } } }

    func logger(label: String = "test", format: LogFormat = .json, level: Logger.Level = .trace) -> Logger {
        let sink = self.sink
        return Logger(label: label) { label in
            StructuredLogHandler(label: label, level: level, format: format, sink: sink)
        }
    }
}
