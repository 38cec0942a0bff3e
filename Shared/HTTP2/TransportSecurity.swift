/// Whether connections run over plain TCP (h2c with prior knowledge) or TLS with ALPN `h2`.
package enum TransportSecurity: Sendable {
    case plaintext

    func makeServerTransport(fd: Int32) throws -> any ByteTransport {
        switch self {
        case .plaintext: return PlainTransport(fd: fd)
        }
    }

    func makeClientTransport(fd: Int32, serverName: String) throws -> any ByteTransport {
        switch self {
        case .plaintext: return PlainTransport(fd: fd)
        }
    }
}
