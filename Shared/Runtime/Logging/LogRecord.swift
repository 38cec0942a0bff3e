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

/// Just enough JSON output for log lines (RFC 8259 strings, objects and arrays).
enum JSONText {
    static func appendString(_ text: String, to output: inout String) {
        output.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output.append("\\\"")
            case "\\": output.append("\\\\")
            case "\n": output.append("\\n")
            case "\r": output.append("\\r")
            case "\t": output.append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                output.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output.append("\"")
    }

    static func appendObject(_ metadata: Logger.Metadata, to output: inout String) {
        output.append("{")
        for (index, key) in metadata.keys.sorted().enumerated() {
            if index > 0 { output.append(",") }
            appendString(key, to: &output)
            output.append(":")
            // Safe: the key comes from the dictionary.
            appendValue(metadata[key]!, to: &output)
        }
        output.append("}")
    }

    static func appendValue(_ value: Logger.MetadataValue, to output: inout String) {
        switch value {
        case .string(let text):
            appendString(text, to: &output)
        case .stringConvertible(let convertible):
            appendString(convertible.description, to: &output)
        case .dictionary(let dictionary):
            appendObject(dictionary, to: &output)
        case .array(let values):
            output.append("[")
            for (index, element) in values.enumerated() {
                if index > 0 { output.append(",") }
                appendValue(element, to: &output)
            }
            output.append("]")
        }
    }
}
