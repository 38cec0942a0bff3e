/// Decodes a `grpc-web-text` request body as it arrives: base64 split anywhere across DATA
/// frames, in segments that may each end padded (PROTOCOL-WEB.md, "Text-encoded streams": a
/// sender may pad wherever it flushes). Line breaks and spaces between characters are skipped.
struct WebTextDecoder: Sendable {
    /// Characters of a group of four not yet complete.
    private var pending: [UInt8] = []

    /// The bytes of every complete group in `chunk` (and those left from earlier chunks).
    mutating func decode(_ chunk: UnsafeRawBufferPointer) throws(RPCError) -> [UInt8] {
        var text = pending
        text.reserveCapacity(pending.count + chunk.count)
        for char in chunk where !Self.isSpace(char) { text.append(char) }
        let complete = text.count / 4 * 4
        pending = Array(text[complete...])
        var out: [UInt8] = []
        out.reserveCapacity(complete / 4 * 3)
        var start = 0
        var group = 0
        while group < complete {
            // A group ending in padding ends a segment; the next group starts a new one.
            if text[group + 3] == UInt8(ascii: "=") {
                try Self.decodeSegment(text[start..<(group + 4)], into: &out)
                start = group + 4
            }
            group += 4
        }
        if start < complete { try Self.decodeSegment(text[start..<complete], into: &out) }
        return out
    }

    /// Throws when the body ended inside a group of four.
    func finish() throws(RPCError) {
        guard pending.isEmpty else { throw Self.malformed }
    }

    private static func decodeSegment(_ segment: ArraySlice<UInt8>, into out: inout [UInt8]) throws(RPCError) {
        guard let bytes = Base64.decode(String(decoding: segment, as: UTF8.self)) else { throw malformed }
        out.append(contentsOf: bytes)
    }

    private static func isSpace(_ char: UInt8) -> Bool {
        char == UInt8(ascii: " ") || char == UInt8(ascii: "\r") || char == UInt8(ascii: "\n") || char == UInt8(ascii: "\t")
    }

    static let malformed = RPCError(code: .internal, message: "malformed grpc-web-text body", reason: "PROTOCOL_ERROR")
}
