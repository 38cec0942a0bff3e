import HTTP2

/// How a call's response goes on the wire. For gRPC: messages in DATA, the status in HTTP/2
/// trailers (or with the head when nothing else was sent). For gRPC-Web (PROTOCOL-WEB.md,
/// "Message framing"): the same head and messages, then the status fields as one more
/// length-prefixed frame with flag 0x80 holding `name: value\r\n` lines, and a bare END_STREAM;
/// `-text` base64-encodes each piece of the body as it is sent (padded, so pieces concatenate).
struct ResponseFraming: Sendable {
    let format: GRPCWireFormat
    /// The response's `content-type`: the request's without parameters.
    let contentType: String
    /// Fields added to the head (CORS).
    let extraHeaders: [HTTP2Header]

    static let grpc = ResponseFraming(format: .grpc, contentType: "application/grpc", extraHeaders: [])

    /// The trailer frame's flag byte: bit 7 set, uncompressed.
    static let trailerFlag: UInt8 = 0x80

    /// `:status 200`, the content type, `grpc-accept-encoding`, then `extraHeaders`, with room
    /// for `reserving` more fields (built once rather than copied from the shared head and
    /// regrown: this runs on every call).
    func head(reserving extra: Int = 0) -> [HTTP2Header] {
        var headers: [HTTP2Header] = []
        headers.reserveCapacity(RPCError.responseHead.count + extraHeaders.count + extra)
        headers.append(contentsOf: RPCError.responseHead)
        if format != .grpc, let index = headers.firstIndex(where: { $0.name == "content-type" }) {
            headers[index].value = contentType
        }
        headers.append(contentsOf: extraHeaders)
        return headers
    }

    /// Bytes as they go into the body: unchanged, or base64 for `-text`.
    func body(_ bytes: [UInt8]) -> [UInt8] {
        guard format == .webText, !bytes.isEmpty else { return bytes }
        return Array(Base64.encode(bytes).utf8)
    }

    /// How the response ends with `status` (the status fields and trailing metadata): the data
    /// still to send before the end, and the end itself.
    func ending(_ status: [HTTP2Header]) -> (data: [UInt8], end: StreamEnd) {
        guard format != .grpc else { return ([], .trailers(status)) }
        return (body(Self.trailerFrame(status)), .endStream)
    }

    /// gRPC-Web's trailer frame: the fields as an HTTP/1 header block without its final empty
    /// line, names lowercase, values as in HTTP/2 trailers (`-bin` values base64).
    static func trailerFrame(_ fields: [HTTP2Header]) -> [UInt8] {
        var block: [UInt8] = []
        for field in fields {
            block.append(contentsOf: field.name.lowercased().utf8)
            block.append(contentsOf: ": ".utf8)
            block.append(contentsOf: field.value.utf8)
            block.append(contentsOf: "\r\n".utf8)
        }
        var frame = [trailerFlag]
        let length = UInt32(block.count)
        frame.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        frame.append(contentsOf: block)
        return frame
    }
}
