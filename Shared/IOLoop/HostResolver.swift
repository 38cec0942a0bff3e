#if canImport(Glibc)
package import Glibc
#endif
import Dispatch
import Synchronization

/// The IPv4 address of a peer's name (a compose service, a Kubernetes Service, Postgres' host)
/// for an outbound connection, with the last answer remembered.
///
/// The resolver is asked again for a connection opened more than `freshFor` after its last
/// answer, so a restarted peer's new address is found. A resolver that stalls costs a connect at
/// most `patience` once an earlier answer exists: that answer is used and the lookup goes on
/// to refresh it. A stall is not rare: glibc sends a name's A and AAAA queries together and waits
/// 5 s for a lost reply, per server and per search domain; Pods started side by side saw 20 and
/// 40 s lookups, which held the first statement of a request (libpq resolves on every connect)
/// far past the edge's timeout. A name the resolver says does not exist fails at once, and is
/// forgotten.
///
/// One lookup per name at a time; callers of the same name share it. Blocks the calling thread:
/// call it where a blocking connect is allowed.
package final class HostResolver: Sendable {
    /// One lookup: the address, or the resolver's failure.
    package typealias Lookup = @Sendable (String) -> Result<in_addr_t, SocketError>

    /// The process' resolver, over getaddrinfo (/etc/hosts, then DNS, as nsswitch.conf says).
    package static let shared = HostResolver()

    private let lookup: Lookup
    private let freshForNanoseconds: UInt64
    private let patience: Duration

    private final class Flight: Sendable {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<in_addr_t, SocketError>?>(nil)
    }

    private struct Entry {
        /// In network byte order, as `in_addr.s_addr`.
        var address: in_addr_t?
        var answeredAt: UInt64 = 0
        var flight: Flight?
    }

    private enum Plan {
        case answer(in_addr_t)
        case wait(Flight, known: in_addr_t?, start: Bool)
    }

    /// One entry per name asked for: the peers in a service's configuration, a handful.
    private let entries = Mutex<[String: Entry]>([:])

    package init(freshFor: Duration = .seconds(5), patience: Duration = .seconds(1),
                 lookup: @escaping Lookup = HostResolver.getaddrinfoLookup) {
        self.lookup = lookup
        self.patience = patience
        freshForNanoseconds = freshFor.nanoseconds
    }

    /// `name`'s address: a dotted quad or `localhost` at once, else as described above.
    package func address(of name: String) throws(SocketError) -> in_addr {
        var literal = in_addr()
        if inet_pton(AF_INET, name == "localhost" ? "127.0.0.1" : name, &literal) == 1 { return literal }
        return in_addr(s_addr: try resolve(name))
    }

    /// `address(of:)` as text ("10.0.0.7"), for libpq's `hostaddr`.
    package func dottedAddress(of name: String) throws(SocketError) -> String {
        var address = try address(of: name)
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Whether `name` needs the resolver (neither a dotted quad nor localhost): a caller on a
    /// shared thread moves the connect off it.
    package static func needsLookup(_ name: String) -> Bool {
        var address = in_addr()
        return name != "localhost" && inet_pton(AF_INET, name, &address) != 1
    }

    private func resolve(_ name: String) throws(SocketError) -> in_addr_t {
        guard !name.isEmpty, name.utf8.count <= 253 else { throw SocketError.system("address \(name)", EINVAL) }
        let now = MonotonicClock.nanoseconds()
        let plan = entries.withLock { entries -> Plan in
            var entry = entries[name] ?? Entry()
            if let address = entry.address, now &- entry.answeredAt <= freshForNanoseconds { return .answer(address) }
            let start = entry.flight == nil
            let flight = entry.flight ?? Flight()
            entry.flight = flight
            entries[name] = entry
            return .wait(flight, known: entry.address, start: start)
        }
        let flight: Flight, known: in_addr_t?, start: Bool
        switch plan {
        case .answer(let address): return address
        case .wait(let waiting, let answer, let first): (flight, known, start) = (waiting, answer, first)
        }
        if start {
            DispatchQueue.global().async { self.run(flight, name: name) }
        }
        if let known {
            guard flight.done.wait(timeout: .now() + .nanoseconds(Int(patience.nanoseconds))) == .success else {
                return known  // the resolver is slow: the last answer, while the lookup goes on
            }
        } else {
            flight.done.wait()
        }
        flight.done.signal()  // for the flight's next waiter
        guard let result = flight.result.withLock({ $0 }) else { throw SocketError.system("resolve \(name)", EAGAIN) }
        switch result {
        case .success(let address):
            return address
        case .failure(let error):
            // A temporary failure (EAI_AGAIN, a timeout) with an earlier answer: that answer.
            if let known, !error.nameDoesNotExist { return known }
            throw error
        }
    }

    private func run(_ flight: Flight, name: String) {
        let result = lookup(name)
        let now = MonotonicClock.nanoseconds()
        entries.withLock { entries in
            var entry = entries[name] ?? Entry()
            switch result {
            case .success(let address):
                entry.address = address
                entry.answeredAt = now
            case .failure(let error) where error.nameDoesNotExist:
                entry.address = nil
            case .failure:
                break
            }
            entry.flight = nil
            entries[name] = entry
        }
        flight.result.withLock { $0 = result }
        flight.done.signal()
    }

    /// The first IPv4 address getaddrinfo gives `name`.
    package static let getaddrinfoLookup: Lookup = { name in
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(name, nil, &hints, &result)
        defer { if let result { freeaddrinfo(result) } }
        guard rc == 0, let first = result, let address = first.pointee.ai_addr else {
            return .failure(SocketError.resolver(name, rc))
        }
        // Safe: only AF_INET was asked for, so every ai_addr is a sockaddr_in.
        return .success(address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr })
    }
}
