import Dispatch
import Foundation
import Glibc
import IOLoop
import Synchronization
import Testing

/// The resolver behind every outbound connection (gRPC peers, Postgres). The lookups here are
/// scripted: a stalled DNS server cannot be summoned on demand, and what matters is what a
/// connect sees while one stalls.
@Suite struct HostResolverTests {
    /// A lookup whose answers (and how long each takes) the test sets, counting calls.
    final class ScriptedDNS: Sendable {
        struct Answer { var result: Result<in_addr_t, SocketError>; var delay: Duration }
        private let state = Mutex<(answer: Answer, calls: Int)>((Answer(result: .success(0), delay: .zero), 0))

        func answer(_ dotted: String, after delay: Duration = .zero) {
            var address = in_addr()
            _ = inet_pton(AF_INET, dotted, &address)
            state.withLock { $0.answer = Answer(result: .success(address.s_addr), delay: delay) }
        }

        func fail(_ code: Int32, after delay: Duration = .zero) {
            state.withLock { $0.answer = Answer(result: .failure(.resolver("peer", code)), delay: delay) }
        }

        var calls: Int { state.withLock { $0.calls } }

        var lookup: HostResolver.Lookup {
            { [self] _ in
                let answer = state.withLock { state in
                    state.calls += 1
                    return state.answer
                }
                Thread.sleep(forTimeInterval: Double(answer.delay.components.seconds)
                             + Double(answer.delay.components.attoseconds) / 1e18)
                return answer.result
            }
        }
    }

    /// Resolves off the cooperative pool (the call blocks), timing it.
    static func resolve(_ resolver: HostResolver, _ name: String = "identity") async -> (String?, Duration) {
        let start = ContinuousClock.now
        let address = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: try? resolver.dottedAddress(of: name)) }
        }
        return (address, start.duration(to: .now))
    }

    @Test func firstLookup_waitsForTheAnswer() async {
        let dns = ScriptedDNS()
        dns.answer("10.0.0.7", after: .milliseconds(300))
        let resolver = HostResolver(freshFor: .zero, patience: .milliseconds(50), lookup: dns.lookup)
        let (address, took) = await Self.resolve(resolver)
        #expect(address == "10.0.0.7")
        #expect(took >= .milliseconds(300))
    }

    @Test func stalledResolver_theLastAnswerWithinPatience_thenTheNewOne() async throws {
        let dns = ScriptedDNS()
        dns.answer("10.0.0.7")
        let resolver = HostResolver(freshFor: .zero, patience: .milliseconds(100), lookup: dns.lookup)
        #expect(await Self.resolve(resolver).0 == "10.0.0.7")

        // The peer moved, and DNS takes 2 s to say so (glibc's lost-reply wait is 5 s).
        dns.answer("10.0.0.9", after: .seconds(2))
        let (stale, took) = await Self.resolve(resolver)
        #expect(stale == "10.0.0.7")
        #expect(took < .seconds(1))
        // The lookup went on; once it answers, connects get the new address.
        try await Task.sleep(for: .milliseconds(2_300))
        dns.answer("10.0.0.9")
        #expect(await Self.resolve(resolver).0 == "10.0.0.9")
    }

    @Test func freshAnswer_isReusedWithoutAsking() async {
        let dns = ScriptedDNS()
        dns.answer("10.0.0.7")
        let resolver = HostResolver(freshFor: .seconds(60), patience: .milliseconds(100), lookup: dns.lookup)
        for _ in 0..<5 { #expect(await Self.resolve(resolver).0 == "10.0.0.7") }
        #expect(dns.calls == 1)
    }

    @Test func concurrentConnects_shareOneLookup() async {
        let dns = ScriptedDNS()
        dns.answer("10.0.0.7", after: .milliseconds(300))
        let resolver = HostResolver(freshFor: .seconds(60), patience: .milliseconds(50), lookup: dns.lookup)
        let answers = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<8 { group.addTask { await Self.resolve(resolver).0 } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == Array(repeating: "10.0.0.7", count: 8))
        #expect(dns.calls == 1)
    }

    @Test func temporaryFailure_usesTheLastAnswer() async {
        let dns = ScriptedDNS()
        dns.answer("10.0.0.7")
        let resolver = HostResolver(freshFor: .zero, patience: .seconds(1), lookup: dns.lookup)
        #expect(await Self.resolve(resolver).0 == "10.0.0.7")
        dns.fail(EAI_AGAIN)
        #expect(await Self.resolve(resolver).0 == "10.0.0.7")
    }

    @Test func nameThatNoLongerExists_failsAndIsForgotten() async {
        let dns = ScriptedDNS()
        dns.answer("10.0.0.7")
        let resolver = HostResolver(freshFor: .zero, patience: .seconds(1), lookup: dns.lookup)
        #expect(await Self.resolve(resolver).0 == "10.0.0.7")
        dns.fail(EAI_NONAME)
        #expect(throws: SocketError.self) { try resolver.address(of: "identity") }
        // Forgotten: a slow answer is now waited for, not replaced by the old address.
        dns.answer("10.0.0.8", after: .milliseconds(300))
        #expect(await Self.resolve(resolver).0 == "10.0.0.8")
    }

    @Test func literalsAndLocalhost_neverAskTheResolver() throws {
        let dns = ScriptedDNS()
        let resolver = HostResolver(lookup: dns.lookup)
        #expect(try resolver.dottedAddress(of: "10.1.2.3") == "10.1.2.3")
        #expect(try resolver.dottedAddress(of: "localhost") == "127.0.0.1")
        #expect(!HostResolver.needsLookup("10.1.2.3") && !HostResolver.needsLookup("localhost"))
        #expect(HostResolver.needsLookup("postgres"))
        #expect(dns.calls == 0)
    }

    @Test func getaddrinfoLookup_answersFromEtcHosts() throws {
        // The lookup itself (the resolver only special-cases "localhost" before it): every
        // Debian /etc/hosts maps it to 127.0.0.1.
        let address = try HostResolver.getaddrinfoLookup("localhost").get()
        #expect(address == in_addr_t(0x7F00_0001).bigEndian)
    }
}
