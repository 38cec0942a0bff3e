#if canImport(Glibc)
import Glibc
#endif

/// Ports on 127.0.0.1 for children the tests start.
package enum LocalPort {
    /// A TCP port free right now (the kernel's choice for a bind to port 0).
    package static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw SubprocessError(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
