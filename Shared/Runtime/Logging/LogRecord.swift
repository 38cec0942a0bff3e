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
    var metadata: Fields

    /// A record's metadata in key order, each key once.
    struct Fields {
        // Keys apart from values: the search compares keys without copying values.
        private(set) var keys: [String] = []
        private(set) var values: [Logger.MetadataValue] = []

        var isEmpty: Bool { keys.isEmpty }

        var elements: [(key: String, value: Logger.MetadataValue)] { Array(zip(keys, values)) }

        /// Sets `key` to `value`, replacing an earlier value.
        mutating func set(_ key: String, _ value: Logger.MetadataValue) {
            // A handful of keys: a linear search beats hashing them.
            var index = keys.endIndex
            while index > keys.startIndex, key < keys[index - 1] { index -= 1 }
            if index > keys.startIndex, keys[index - 1] == key {
                values[index - 1] = value
            } else if index == keys.endIndex {
                // The usual case for fields given in key order; `insert` takes its generic,
                // several times longer path even at the end.
                keys.append(key)
                values.append(value)
            } else {
                keys.insert(key, at: index)
                values.insert(value, at: index)
            }
        }

        mutating func set(_ metadata: Logger.Metadata) {
            if keys.capacity == 0 {
                // Room for a call's line (its fields, the trace's ids, an error) at once.
                keys.reserveCapacity(max(metadata.count, 12))
                values.reserveCapacity(max(metadata.count, 12))
            }
            for (key, value) in metadata { set(key, value) }
        }
    }

    /// `{"timestamp":…,"level":…,"label":…,"message":…,"metadata":{…}}` and a newline.
    func jsonLine() -> String {
        var line = "{\"timestamp\":"
        line.reserveCapacity(512)
        JSONText.appendString(timestamp, to: &line)
        line += ",\"level\":"
        JSONText.appendString(level.rawValue, to: &line)
        line += ",\"label\":"
        JSONText.appendString(label, to: &line)
        line += ",\"message\":"
        JSONText.appendString(message, to: &line)
        if !metadata.isEmpty {
            line += ",\"metadata\":"
            JSONText.appendObject(sorted: metadata.elements, to: &line)
        }
        line += "}\n"
        return line
    }

    /// `2025-01-02T03:04:05.678Z info label: message key=value …` and a newline.
    func textLine() -> String {
        // Bytes first, one String at the end: String appends check and grow on every piece
        // (this runs for every logged call).
        var line: [UInt8] = []
        // A call's line with its request and trace ids is about 300 bytes.
        line.reserveCapacity(512)
        Self.append(timestamp, to: &line)
        line.append(UInt8(ascii: " "))
        Self.append(level.rawValue, to: &line)
        line.append(UInt8(ascii: " "))
        Self.append(label, to: &line)
        line.append(UInt8(ascii: ":"))
        line.append(UInt8(ascii: " "))
        Self.append(message, to: &line)
        for index in metadata.keys.indices {
            line.append(UInt8(ascii: " "))
            Self.append(metadata.keys[index], to: &line)
            line.append(UInt8(ascii: "="))
            if case .string(let text) = metadata.values[index] {
                Self.append(text, to: &line)
            } else {
                Self.append(metadata.values[index].description, to: &line)
            }
        }
        // One record, one line: a line break inside a message or value becomes a space. Both are
        // ASCII, so bytes are replaced without decoding characters.
        line.withUnsafeMutableBufferPointer { bytes in
            for index in bytes.indices where bytes[index] == 0x0A || bytes[index] == 0x0D {
                bytes[index] = 0x20
            }
        }
        line.append(0x0A)
        return String(decoding: line, as: UTF8.self)
    }

    /// `text`'s UTF-8 appended to `line`: copied whole from a native string's storage, where the
    /// generic append goes byte by byte (about four times the instructions, per piece of a line).
    private static func append(_ text: String, to line: inout [UInt8]) {
        var text = text
        text.withUTF8 { line.append(contentsOf: $0) }
    }

    /// The current time as RFC 3339 UTC with milliseconds.
    static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return format(seconds: time.tv_sec, milliseconds: Int(time.tv_nsec / 1_000_000))
    }

    static func format(seconds: Int, milliseconds: Int) -> String {
        var prefix = secondPrefix(seconds)
        let milliseconds = min(max(milliseconds, 0), 999)
        // Written in place: one allocation (this runs for every record).
        return prefix.withUTF8 { head in
            String(unsafeUninitializedCapacity: head.count + 4) { buffer in
                _ = buffer.initialize(from: head)
                buffer[head.count] = UInt8(48 + milliseconds / 100)
                buffer[head.count + 1] = UInt8(48 + milliseconds / 10 % 10)
                buffer[head.count + 2] = UInt8(48 + milliseconds % 10)
                buffer[head.count + 3] = UInt8(ascii: "Z")
                return head.count + 4
            }
        }
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
