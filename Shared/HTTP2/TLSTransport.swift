internal import CryptoCore

/// TLS over a non-blocking socket, through CryptoCore's OpenSSL connection.
final class TLSTransport: ByteTransport {
    private let connection: TLSConnection
    private var handshakeDone = false

    init(context: TLSContext, fd: Int32, serverName: String?) throws {
        connection = try TLSConnection(context: context, fileDescriptor: fd, serverName: serverName)
    }

    func handshake() -> TransportResult {
        do {
            let result = map(try connection.handshake())
            if case .bytes = result {
                handshakeDone = true
                // ALPN must have chosen h2: a peer that offered no ALPN at all is refused too.
                guard connection.negotiatedALPN == "h2" else { return .failed("ALPN did not select h2") }
            }
            return result
        } catch {
            return .failed(String(describing: error))
        }
    }

    var negotiatedProtocol: String? { connection.negotiatedALPN }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        do {
            return map(try connection.read(into: buffer))
        } catch {
            return .failed(String(describing: error))
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> TransportResult {
        do {
            return map(try connection.write(bytes))
        } catch {
            return .failed(String(describing: error))
        }
    }

    func shutdown() {
        if handshakeDone { connection.shutdown() }
    }

    private func map(_ result: TLSConnection.IOResult) -> TransportResult {
        switch result {
        case .bytes(let count): return .bytes(count)
        case .wantRead: return .wouldBlock(wantsWrite: false)
        case .wantWrite: return .wouldBlock(wantsWrite: true)
        case .closed: return .closed
        }
    }
}
