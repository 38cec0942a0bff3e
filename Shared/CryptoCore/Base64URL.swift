/// The base64url alphabet without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2).
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The 6-bit value of each alphabet byte; 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// `bytes` as unpadded base64url text.
    package static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            if second != nil { output.append(alphabet[Int(group >> 6 & 0x3F)]) }
            if third != nil { output.append(alphabet[Int(group & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url text.
    ///
    /// Strict: padding, whitespace, characters of the standard alphabet (`+`, `/`), a dangling
    /// sixth of a byte (length ≡ 1 mod 4) and non-zero unused trailing bits all throw
    /// `.malformed`, so each byte string has exactly one accepted encoding.
    package static func decode<Text: StringProtocol>(_ text: Text) throws -> [UInt8] {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { throw CryptoError(.malformed, "base64url: impossible length") }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = values[Int(byte)]
            guard value != 0xFF else { throw CryptoError(.malformed, "base64url: invalid character") }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // What is left over is the unused low bits of the last character; they must be zero.
        guard accumulator == 0 else { throw CryptoError(.malformed, "base64url: non-canonical trailing bits") }
        return output
    }
}
