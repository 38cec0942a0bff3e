/// The gRPC content type (gRPC over HTTP/2 spec, "Content-Type"): `application/grpc`, optionally
/// followed by `+format` (e.g. `+proto`) or `;parameters`. `application/grpcx` is not gRPC.
package enum GRPCContentType {
    package static func matches(_ value: String) -> Bool {
        wireFormat(of: value)?.format == .grpc
    }

    /// The wire format a request's content type names, and the type to answer with (the
    /// request's without parameters); nil for anything else, `application/grpcx` included.
    /// gRPC-Web's types (PROTOCOL-WEB.md): `application/grpc-web` and `application/grpc-web-text`,
    /// each optionally with `+format`.
    package static func wireFormat(of value: String) -> (format: GRPCWireFormat, responseType: String)? {
        if value == "application/grpc" { return (.grpc, value) }
        var type = Substring(value.lowercased())
        if let semicolon = type.firstIndex(of: ";") { type = type[..<semicolon] }
        type = type.trimmingContentTypeSpaces
        let base = type.firstIndex(of: "+").map { type[..<$0] } ?? type
        switch base {
        case "application/grpc": return (.grpc, "application/grpc")
        case "application/grpc-web": return (.web, String(type))
        case "application/grpc-web-text": return (.webText, String(type))
        default: return nil
        }
    }
}

/// How a call's messages and status travel.
package enum GRPCWireFormat: Sendable, Equatable {
    /// gRPC over HTTP/2: the status in HTTP/2 trailers.
    case grpc
    /// gRPC-Web: the status as the body's last frame (flag 0x80).
    case web
    /// gRPC-Web with the body base64-encoded both ways.
    case webText
}

extension Substring {
    fileprivate var trimmingContentTypeSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
