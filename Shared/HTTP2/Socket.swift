#if canImport(Glibc)
import Glibc
#endif
internal import CLinux
import IOLoop

/// Thin wrappers over the POSIX socket calls the HTTP/2 layer uses. Every descriptor is
/// non-blocking and close-on-exec.
package enum Socket {
    /// Opens a listening TCP socket on `host:port` (IPv4 dotted quad or "0.0.0.0").
    /// `reusePort` lets several loops share one port, each accepting on its own socket.
    package static func listen(host: String, port: Int, backlog: Int32 = 1024, reusePort: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError.system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if reusePort {
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = try makeAddress(host: host, port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = errno
            close(fd)
            throw SocketError.system("bind \(host):\(port)", error)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = errno
            close(fd)
            throw SocketError.system("listen", error)
        }
        return (fd, try localPort(fd))
    }

    /// Accepts one pending connection, or nil when none is waiting.
    package static func accept(_ listener: Int32) throws -> Int32? {
        let fd = clinux_accept4(listener, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        if fd < 0 {
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: return nil
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: throw SocketError.system("accept", errno)
            default: return nil
            }
        }
        setNoDelay(fd)
        return fd
    }

    /// Starts a non-blocking connect to `host:port`; completion shows as writability.
    package static func connect(host: String, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError.system("socket", errno) }
        setNoDelay(fd)
        var address = try makeAddress(host: host, port: port)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 && errno != EINPROGRESS {
            let error = errno
            close(fd)
            throw SocketError.system("connect \(host):\(port)", error)
        }
        return fd
    }

    /// The pending error of a socket (after a non-blocking connect), 0 when none.
    package static func pendingError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        return error
    }

    /// True once a non-blocking connect has completed.
    static func isConnected(_ fd: Int32) -> Bool {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    static func localPort(_ fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { throw SocketError.system("getsockname", errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The peer's address as "a.b.c.d:port", for logs.
    package static func peerDescription(_ fd: Int32) -> String {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard rc == 0 else { return "unknown" }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        var inAddr = address.sin_addr
        inet_ntop(AF_INET, &inAddr, &text, socklen_t(text.count))
        let host = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return "\(host):\(UInt16(bigEndian: address.sin_port))"
    }

    private static func makeAddress(host: String, port: Int) throws -> sockaddr_in {
        guard (0...65535).contains(port) else { throw SocketError.system("port \(port)", EINVAL) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = try HostResolver.shared.address(of: host)
        return address
    }
}
