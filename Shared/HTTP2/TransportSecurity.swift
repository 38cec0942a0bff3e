package import CryptoCore

/// Whether connections run over plain TCP (h2c with prior knowledge) or TLS with ALPN `h2`.
package enum TransportSecurity: Sendable {
    case plaintext
    /// TLS with the given context (server or client; see `TLSContext.makeServer`/`makeClient`).
    case tls(TLSContext)

    /// `http` or `https`, for the `:scheme` pseudo-header.
    package var scheme: String {
        switch self {
        case .plaintext: return "http"
        case .tls: return "https"
        }
    }

    func makeServerTransport(fd: Int32) throws -> any ByteTransport {
        switch self {
        case .plaintext: return PlainTransport(fd: fd)
        case .tls(let context): return try TLSTransport(context: context, fd: fd, serverName: nil)
        }
    }

    func makeClientTransport(fd: Int32, serverName: String) throws -> any ByteTransport {
        switch self {
        case .plaintext: return PlainTransport(fd: fd)
        case .tls(let context): return try TLSTransport(context: context, fd: fd, serverName: serverName)
        }
    }
}
