@testable import CryptoCore

/// A server and a client `TLSConnection` over one in-process socket pair, driven in turns.
final class TLSPair {
    /// How one side's handshake ended.
    enum Outcome {
        case done
        case failed(TLSError)
        case closed
        case stalled
    }

    let sockets: SocketPair
    let server: TLSConnection
    let client: TLSConnection

    init(server serverContext: TLSContext, client clientContext: TLSContext, serverName: String? = "localhost") throws {
        self.sockets = try SocketPair()
        self.server = try TLSConnection(context: serverContext, fileDescriptor: self.sockets.server, serverName: nil)
        self.client = try TLSConnection(context: clientContext, fileDescriptor: self.sockets.client, serverName: serverName)
    }

    /// Calls `handshake()` on each side in turn until both finish, or one fails and the other
    /// has had a few more turns to read the alert.
    func handshake() -> (server: Outcome, client: Outcome) {
        var server: Outcome = .stalled
        var client: Outcome = .stalled
        var turnsAfterFailure = 0
        for _ in 0..<200 {
            if case .stalled = server { server = Self.step(self.server) }
            if case .stalled = client { client = Self.step(self.client) }
            switch (server, client) {
            case (.done, .done):
                return (server, client)
            case (.failed, _), (_, .failed), (.closed, _), (_, .closed):
                turnsAfterFailure += 1
                if turnsAfterFailure > 5 { return (server, client) }
            default:
                continue
            }
        }
        return (server, client)
    }

    private static func step(_ connection: TLSConnection) -> Outcome {
        do {
            switch try connection.handshake() {
            case .bytes: return .done
            case .wantRead, .wantWrite: return .stalled
            case .closed: return .closed
            }
        } catch let error as TLSError {
            return .failed(error)
        } catch {
            fatalError("handshake threw a non-TLS error: \(error)")
        }
    }

    /// Moves `bytes` from `sender` to `receiver` through TLS, interleaving partial writes and
    /// reads as a single-threaded event loop would.
    static func transfer(_ bytes: [UInt8], from sender: TLSConnection, to receiver: TLSConnection) throws -> [UInt8] {
        var sent = 0
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var idleTurns = 0
        while received.count < bytes.count {
            var progressed = false
            if sent < bytes.count {
                let result = try bytes[sent...].withUnsafeBytes { try sender.write($0) }
                if case .bytes(let n) = result, n > 0 { sent += n; progressed = true }
            }
            // Drain until .wantRead: OpenSSL may hold decrypted bytes the socket no longer shows.
            readLoop: while true {
                let result = try buffer.withUnsafeMutableBytes { try receiver.read(into: $0) }
                switch result {
                case .bytes(let n):
                    received.append(contentsOf: buffer[..<n])
                    progressed = true
                case .wantRead, .wantWrite:
                    break readLoop
                case .closed:
                    return received
                }
            }
            idleTurns = progressed ? 0 : idleTurns + 1
            if idleTurns > 3 { break }
        }
        return received
    }
}

extension TLSPair.Outcome {
    var error: TLSError? {
        if case .failed(let error) = self { return error }
        return nil
    }
    var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}
