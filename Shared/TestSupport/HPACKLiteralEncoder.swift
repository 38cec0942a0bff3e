/// The smallest HPACK encoder a test peer needs (RFC 7541): every field as a literal without
/// indexing and with a new name, no Huffman, so the peer never touches the dynamic table.
package enum HPACKLiteralEncoder {
    package static func encode(_ headers: [(String, String)]) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in headers {
            block.append(0x00) // §6.2.2: literal header field without indexing, new name.
            appendString(Array(name.utf8), to: &block)
            appendString(Array(value.utf8), to: &block)
        }
        return block
    }

    /// §5.2: a string literal with H = 0.
    static func appendString(_ bytes: [UInt8], to block: inout [UInt8]) {
        appendInteger(bytes.count, prefixBits: 7, firstByte: 0x00, to: &block)
        block += bytes
    }

    /// §5.1: an integer with an N-bit prefix.
    static func appendInteger(_ value: Int, prefixBits: Int, firstByte: UInt8, to block: inout [UInt8]) {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else {
            block.append(firstByte | UInt8(value))
            return
        }
        block.append(firstByte | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            block.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        block.append(UInt8(rest))
    }
}
