/// Base64 for `-bin` metadata values: written padded, read padded or unpadded (gRPC spec).
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining == 1 {
            let value = UInt32(bytes[index]) << 16
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(0x3D)
            out.append(0x3D)
        } else if remaining == 2 {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(0x3D)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes padded or unpadded base64; nil on a character outside the alphabet or a bad length.
    package static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for char in text.utf8 {
            if char == 0x3D {
                padding += 1
                continue
            }
            // Nothing but more padding may follow padding.
            if padding > 0 { return nil }
            let value = reverse[Int(char)]
            if value == 0xFF { return nil }
            values.append(value)
        }
        if values.count % 4 == 1 { return nil }
        // Padding, when present, must complete the last group exactly.
        if padding > 0 && (padding > 2 || (values.count + padding) % 4 != 0) { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let value = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
                | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            out.append(UInt8(value >> 16 & 0xFF))
            out.append(UInt8(value >> 8 & 0xFF))
            out.append(UInt8(value & 0xFF))
            index += 4
        }
        let remaining = values.count - index
        if remaining == 2 {
            let value = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
            out.append(UInt8(value >> 16 & 0xFF))
        } else if remaining == 3 {
            let value = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
            out.append(UInt8(value >> 16 & 0xFF))
            out.append(UInt8(value >> 8 & 0xFF))
        }
        return out
    }
}
