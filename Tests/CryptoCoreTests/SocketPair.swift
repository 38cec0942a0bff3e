import Glibc

/// Two connected non-blocking stream sockets (AF_UNIX), closed in `deinit`.
final class SocketPair {
    let server: Int32
    let client: Int32

    init() throws {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw SocketError(operation: "socketpair", code: errno)
        }
        self.server = fds[0]
        self.client = fds[1]
        for fd in fds {
            guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
                throw SocketError(operation: "fcntl", code: errno)
            }
        }
    }

    /// Writes raw bytes, bypassing TLS (to play a misbehaving peer).
    func writeRaw(_ bytes: [UInt8], to fd: Int32) throws {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw SocketError(operation: "write", code: errno) }
    }

    /// Closes one end early, without any TLS close_notify.
    func closeClientAbruptly() {
        Glibc.shutdown(self.client, Int32(SHUT_RDWR))
    }

    deinit {
        close(self.server)
        close(self.client)
    }
}

struct SocketError: Error {
    var operation: String
    var code: Int32
}
