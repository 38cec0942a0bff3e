import Foundation
import Testing
import TestSupport

/// Consumer contracts (README, "Contracts between services"): what each service relies on in
/// another's API is stated once, in `Shared/Contracts/Consumers/<consumer>.json`, and checked
/// against the provider's contract (proto-docs) and against the provider's real executable
/// (`Fixtures/consumer_contracts.py`): every RPC answers OK to the consumer's request with its
/// credential, and every field the consumer reads comes back populated.
@Suite struct ConsumerContractTests {
    static let script = RepositoryPaths.root.appendingPathComponent("Tests/ContractsTests/Fixtures/consumer_contracts.py")
    static let consumers = RepositoryPaths.root.appendingPathComponent("Shared/Contracts/Consumers")
    static let cases = RepositoryPaths.root.appendingPathComponent("Tests/ContractsTests/Fixtures/consumer-cases")

    /// Runs the checker; its failure lines (one per broken expectation) and exit code.
    static func check(_ mode: String, consumers: URL) async throws -> (exitCode: Int32, failures: [String], log: String) {
        var arguments = [script.path, mode, "--proto-root", RepositoryPaths.root.appendingPathComponent("proto-docs").path,
                         "--consumers", consumers.path]
        var environment: [String: String] = [:]
        if mode == "live" {
            // Fails with the db.sh hint when Postgres is down, rather than a start-up timeout.
            try await TestDatabase.makePool(TestDatabase.configuration(role: "identity", poolSize: 1)).close()
            // Every service the contracts may call; the checker starts those they do.
            for service in JourneyStack.services {
                environment["RV_PG_URL_\(service.uppercased())"] = DiscoveryStack.postgresURL(role: service)
                arguments += ["--executable", "\(service)=\(try RepositoryPaths.builtExecutable(service))"]
            }
            // Media as MediaStack runs it: a local backend, the folder every media on this
            // database shares, a reveal job that finds a due event soon.
            environment["RV_MEDIA_URL_SECRET"] = MediaStack.urlSecret
            environment["RV_MEDIA_REVEAL_INTERVAL_MS"] = "100"
            await MediaBackendLock.shared.acquire("local")
            environment["RV_MEDIA_STORAGE_DIR"] = MediaStack.retainSharedStorage()
        }
        let result: PythonScript.Result
        do {
            result = try await PythonScript.run(arguments, input: Data(), environment: environment)
        } catch {
            await Self.releaseMedia(mode)
            throw error
        }
        await Self.releaseMedia(mode)
        let failures = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
        return (result.exitCode, failures, String(decoding: result.errors, as: UTF8.self))
    }

    private static func releaseMedia(_ mode: String) async {
        guard mode == "live" else { return }
        MediaStack.releaseSharedStorage()
        await MediaBackendLock.shared.release()
    }

    @Test func everyConsumer_matchesTheProvidersContract() async throws {
        let result = try await Self.check("static", consumers: Self.consumers)
        #expect(result.exitCode == 0 && result.failures.isEmpty, "\(result.failures) \(result.log)")
    }

    @Test func everyConsumer_getsWhatItReads_fromTheProvidersExecutable() async throws {
        let result = try await Self.check("live", consumers: Self.consumers)
        #expect(result.exitCode == 0 && result.failures.isEmpty, "\(result.failures) \(result.log)")
    }

    /// The checker names each broken expectation: a field, an RPC, a type or a streaming shape the
    /// provider's contract does not have; of events, a type filtered on but not declared or the
    /// reverse, a payload message or field the provider does not have, events on another RPC.
    @Test func brokenExpectations_areNamed() async throws {
        let result = try await Self.check("static", consumers: Self.cases.appendingPathComponent("broken-contract"))
        #expect(result.exitCode == 1)
        let prefix = "broken.json: rendezvous."
        let events = "broken-discovery.json: rendezvous.events.v1.EventStream/WatchEvents: "
        #expect(Set(result.failures) == [
            prefix + "identity.v1.Identity/GetSigningKeys: reads keys.fingerprint: rendezvous.identity.v1.SigningKey has no field fingerprint",
            prefix + "identity.v1.Identity/GetSigningKeys: reads max_age: rendezvous.identity.v1.SigningKeySet has no field max_age",
            prefix + "identity.v1.Identity/GetSigningKey: rendezvous.identity.v1.Identity has no RPC GetSigningKey",
            prefix + "identity.v1.Identity/GetAccount: returns rendezvous.identity.v1.Account, not rendezvous.identity.v1.AuthSession",
            prefix + "identity.v1.Identity/GetAccount: reads account.id: rendezvous.identity.v1.Account has no field account",
            prefix + "events.v1.EventStream/WatchEvents: streaming is server, the consumer expects None",
            prefix + "events.v1.EventStream/WatchEvents: sends after: rendezvous.events.v1.WatchEventsRequest has no field after",
            prefix + "events.v1.EventStream/WatchEvents: reads cursor.value: cursor is not a message",
            events + "example.types does not ask for MatchEnded, which events declares",
            events + "example.types asks for SessionClosed, which events does not declare",
            events + "event MatchCreated: reads matched_by: rendezvous.discovery.v1.MatchCreated has no field matched_by",
            events + "event MatchEnded: the provider has no message rendezvous.discovery.v1.MatchOver",
            "broken-discovery.json: rendezvous.discovery.v1.GroupSessions/ListCategories: declares events, but returns "
                + "rendezvous.discovery.v1.ListCategoriesResponse, not rendezvous.events.v1.Event",
        ], "\(result.log)")
    }

    /// A field the contract has but the provider leaves empty fails the live check by name: in a
    /// response of identity, and in the payload of an event media's reveal job emits.
    @Test func aFieldTheProviderLeavesEmpty_failsTheLiveCheck() async throws {
        let result = try await Self.check("live", consumers: Self.cases.appendingPathComponent("empty-field"))
        #expect(result.exitCode == 1)
        #expect(result.failures == [
            "empty-media.json: rendezvous.events.v1.EventStream/WatchEvents: the provider's EventRevealed events leave photo_count empty, and the consumer reads it",
            "empty.json: rendezvous.identity.v1.DevicesInternal/ListActivePushTokens: the provider leaves tokens.inactive_reason empty, and the consumer reads it",
        ], "\(result.log)")
    }
}
