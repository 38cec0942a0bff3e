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
        let candidates = range(below: ephemeralRangeStart(), shard: shard)
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

    /// `make test` runs the tests in several processes at once (`RV_TEST_SHARD` = `index/count`,
    /// from 1): each takes its ports from a slice of its own, since a port handed out here is
    /// bound only later, by the child it is for, and another process could pick it meanwhile.
    static let shard: (index: Int, count: Int) = {
        let parts = ProcessInfo.processInfo.environment["RV_TEST_SHARD"]?.split(separator: "/").compactMap { Int($0) } ?? []
        guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else { return (1, 1) }
        return (parts[0], parts[1])
    }()

    /// The ports below `low` (the ephemeral range's start) this process may hand out: 12,000
    /// below it, or the shard's slice of them; none when the range starts too low.
    package static func range(below low: Int, shard: (index: Int, count: Int)) -> Range<Int> {
        guard low > 4096 else { return 0..<0 }
        let all = max(1024, low - 12_000)..<low
        let size = all.count / shard.count
        let start = all.lowerBound + (shard.index - 1) * size
        return start..<(start + size)
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
