/// Percent-encoding of `grpc-message` (gRPC over HTTP/2 spec, "Responses"): bytes outside
/// 0x20...0x7E and `%` itself are written as `%XX` of their UTF-8 bytes.
package enum PercentEncoding {
    package static func encode(_ text: String) -> String {
        var needsEncoding = false
        for byte in text.utf8 where byte < 0x20 || byte > 0x7E || byte == 0x25 {
            needsEncoding = true
            break
        }
        guard needsEncoding else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 2)
        for byte in text.utf8 {
            if byte < 0x20 || byte > 0x7E || byte == 0x25 {
                out.append(0x25)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` sequences; a malformed sequence is kept as it is, as the spec asks.
    package static func decode(_ text: String) -> String {
        guard text.utf8.contains(0x25) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x25, index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
