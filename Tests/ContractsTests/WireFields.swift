/// Splits serialized bytes into their top-level fields, tag included, to compare two
/// encodings that differ only in field order.
enum WireFields {
    struct Malformed: Error {}

    static func split(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var fields: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let start = index
            let tag = try varint(bytes, &index)
            switch tag & 7 {
            case 0: _ = try varint(bytes, &index)
            case 1: index += 8
            case 2:
                let length = try varint(bytes, &index)
                guard length <= UInt64(bytes.count) else { throw Malformed() }
                index += Int(length)
            case 5: index += 4
            default: throw Malformed()
            }
            guard index <= bytes.count else { throw Malformed() }
            fields.append(Array(bytes[start..<index]))
        }
        return fields
    }

    private static func varint(_ bytes: [UInt8], _ index: inout Int) throws -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard index < bytes.count, shift < 64 else { throw Malformed() }
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
        }
        throw Malformed()
    }
}
