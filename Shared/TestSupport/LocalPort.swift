#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Ports on 127.0.0.1 for children the tests start.
package enum LocalPort {
    /// Ports handed out by this process: each goes to one child only.
    private static let handedOut = Mutex<Set<Int>>([])

    /// A TCP port free right now, below the kernel's ephemeral range. A port the kernel picks
    /// for a bind to port 0 comes from that range, and so do the local ports of outgoing
    /// connections: between the pick and the child's bind, a connection of some other process
    /// could take it ("Address already in use"). Below the range, only a listener can.
    package static func free() throws -> Int {
        let low = ephemeralRangeStart()
        let candidates = low > 4096 ? max(1024, low - 12_000)..<low : 0..<0
        for _ in 0..<200 where !candidates.isEmpty {
            let port = Int.random(in: candidates)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if (try? bound(port: port)) != nil { return port }
        }
        // No room below the range (or all taken): the kernel's choice, as before.
        let port = try bound(port: 0)
        handedOut.withLock { _ = $0.insert(port) }
        return port
    }

    /// The first port of the kernel's range for ports it picks (`net.ipv4.ip_local_port_range`).
    static func ephemeralRangeStart() -> Int {
        let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        return text?.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    }

    /// Binds a socket to 127.0.0.1:`port` (0: the kernel chooses), returns the port it got and
    /// closes the socket.
    private static func bound(port: Int) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
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
