/// The gRPC content type (gRPC over HTTP/2 spec, "Content-Type"): `application/grpc`, optionally
/// followed by `+format` (e.g. `+proto`) or `;parameters`. `application/grpcx` is not gRPC.
package enum GRPCContentType {
    package static func matches(_ value: String) -> Bool {
        let value = value.lowercased()
        guard value.hasPrefix("application/grpc") else { return false }
        let rest = value.utf8.dropFirst("application/grpc".utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: ";")
    }
}
