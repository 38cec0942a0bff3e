#if canImport(Glibc)
import Glibc
#endif

/// The edge's upstream servers named by host (`server identity:7101;`, as render.sh --compose
/// writes them) replaced by the addresses those names have now: one `server` line per address
/// (a service's replicas), or a server marked down when the name has none (its container is
/// stopped), so nginx answers that service's calls UNAVAILABLE at once. Servers given by address
/// stay as they are.
enum EdgeUpstreams {
    /// `config` with every named upstream server resolved by `resolve` (sorted addresses).
    static func render(_ config: String, resolve: (String) -> [String]) -> String {
        var lines: [Substring] = []
        for line in config.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.contains("upstream ") else {
                lines.append(line)
                continue
            }
            lines.append(Substring(renderUpstreamLine(line, resolve: resolve)))
        }
        return lines.joined(separator: "\n")
    }

    private static func renderUpstreamLine(_ line: Substring, resolve: (String) -> [String]) -> String {
        var output = ""
        var rest = line[...]
        while let range = rest.range(of: "server ") {
            output += rest[..<range.lowerBound]
            let after = rest[range.upperBound...]
            guard let end = after.firstIndex(of: ";") else {
                output += rest[range.lowerBound...]
                return output
            }
            let target = after[..<end]
            rest = after[after.index(after: end)...]
            // `identity:7101 max_fails=1 fail_timeout=3s`: the parameters go with every address.
            let named = target.prefix { $0 != " " }
            let parameters = target[named.endIndex...]
            guard let colon = named.lastIndex(of: ":"), !isAddress(String(named[..<colon])) else {
                output += "server \(target);"
                continue
            }
            let host = String(named[..<colon]), port = named[named.index(after: colon)...]
            let addresses = resolve(host)
            output += addresses.isEmpty
                ? "server 127.0.0.1:1 down;"
                : addresses.map { "server \($0):\(port)\(parameters);" }.joined(separator: " ")
        }
        return output + rest
    }

    private static func isAddress(_ host: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    /// Every IPv4 address the system resolver has for `name` (getaddrinfo: /etc/hosts, then the
    /// container network's DNS), sorted; none when it has no answer.
    static func systemResolve(_ name: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &result) == 0 else { return [] }
        defer { freeaddrinfo(result) }
        var addresses: Set<String> = []
        var next = result
        while let entry = next {
            if let address = entry.pointee.ai_addr {
                // Safe: only AF_INET was asked for, so every ai_addr is a sockaddr_in.
                var inAddress = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                if inet_ntop(AF_INET, &inAddress, &text, socklen_t(text.count)) != nil {
                    addresses.insert(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })  // NUL-terminated by inet_ntop
                }
            }
            next = entry.pointee.ai_next
        }
        return addresses.sorted()
    }
}
