import Logging

/// Just enough JSON output for log lines (RFC 8259 strings, objects and arrays).
enum JSONText {
    static func appendString(_ text: String, to output: inout String) {
        output.append("\"")
        // Most text needs no escape: then it is copied whole (this runs on every logged call).
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            output.append(text)
            output.append("\"")
            return
        }
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
        appendObject(sorted: metadata.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, to: &output)
    }

    /// An object of fields already in key order.
    static func appendObject(sorted fields: [(key: String, value: Logger.MetadataValue)], to output: inout String) {
        output.append("{")
        for (index, field) in fields.enumerated() {
            if index > 0 { output.append(",") }
            appendString(field.key, to: &output)
            output.append(":")
            appendValue(field.value, to: &output)
        }
        output.append("}")
    }

    static func appendValue(_ value: Logger.MetadataValue, to output: inout String) {
        switch value {
        case .string(let text):
            appendString(text, to: &output)
        case .stringConvertible(let convertible):
            if let number = number(convertible) {
                output.append(number)
            } else {
                appendString(convertible.description, to: &output)
            }
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

    /// Integers, finite floating-point numbers and booleans as bare JSON values, so log queries
    /// can compare them (`rpc.duration_ms > 100`).
    private static func number(_ value: any CustomStringConvertible & Sendable) -> String? {
        // Each case is a dynamic cast: Double first, for every call's `rpc.duration_ms`.
        switch value {
        case let double as Double where double.isFinite:
            return value.description
        case is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16, is UInt32, is UInt64, is Bool:
            return value.description
        case let float as Float where float.isFinite:
            return value.description
        default:
            return nil
        }
    }
}
