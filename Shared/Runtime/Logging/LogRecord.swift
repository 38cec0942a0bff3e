#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// One log record, ready to be written as a JSON or text line.
struct LogRecord {
    var timestamp: String
    var level: Logger.Level
    var label: String
    var message: String
    var metadata: Logger.Metadata

    /// `{"timestamp":…,"level":…,"label":…,"message":…,"metadata":{…}}` and a newline.
    func jsonLine() -> String {
        var line = "{\"timestamp\":"
        line.reserveCapacity(256)
        JSONText.appendString(timestamp, to: &line)
        line += ",\"level\":"
        JSONText.appendString(level.rawValue, to: &line)
        line += ",\"label\":"
        JSONText.appendString(label, to: &line)
        line += ",\"message\":"
        JSONText.appendString(message, to: &line)
        if !metadata.isEmpty {
            line += ",\"metadata\":"
            JSONText.appendObject(metadata, to: &line)
        }
        line += "}\n"
        return line
    }

    /// `2025-01-02T03:04:05.678Z info label: message key=value …` and a newline.
    func textLine() -> String {
        var line = timestamp
        line.reserveCapacity(192)
        line += " "
        line += level.rawValue
        line += " "
        line += label
        line += ": "
        line += message
        for key in metadata.keys.sorted() {
            line += " "
            line += key
            line += "="
            // Safe: the key comes from the dictionary.
            line += metadata[key]!.description
        }
        // One record, one line: a line break inside a message or value becomes a space. Both are
        // ASCII, so bytes are replaced without decoding characters (this runs on every call).
        if line.withUTF8({ $0.contains { $0 == 0x0A || $0 == 0x0D } }) {
            line = String(decoding: line.utf8.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, as: UTF8.self)
        }
        line += "\n"
        return line
    }

    /// The current time as RFC 3339 UTC with milliseconds.
    static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return format(seconds: time.tv_sec, milliseconds: Int(time.tv_nsec / 1_000_000))
    }

    static func format(seconds: Int, milliseconds: Int) -> String {
        var text = secondPrefix(seconds)
        let milliseconds = min(max(milliseconds, 0), 999)
        for divisor in [100, 10, 1] {
            text.unicodeScalars.append(Unicode.Scalar(UInt8(48 + milliseconds / divisor % 10)))
        }
        text += "Z"
        return text
    }

    /// `2025-01-02T03:04:05.`: formatted once per second, not once per record.
    private static func secondPrefix(_ seconds: Int) -> String {
        if let cached = lastSecond.withLock({ $0.seconds == seconds ? $0.prefix : nil }) { return cached }
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let prefix = "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
        lastSecond.withLock { $0 = (seconds, prefix) }
        return prefix
    }

    private static let lastSecond = Mutex<(seconds: Int, prefix: String)>((.min, ""))
}
