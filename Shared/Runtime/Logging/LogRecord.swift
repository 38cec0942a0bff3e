#if canImport(Glibc)
import Glibc
#endif
import Logging

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
        var line = "\(timestamp) \(level.rawValue) \(label): \(message)"
        for key in metadata.keys.sorted() {
            // Safe: the key comes from the dictionary.
            line += " \(key)=\(metadata[key]!)"
        }
        line = String(line.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
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
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(milliseconds), 3))Z"
    }
}
