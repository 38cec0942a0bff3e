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
            let database = TestDatabase.configuration(role: "identity")
            environment["RV_PG_URL_IDENTITY"] = "postgresql://\(database.user):\(database.password ?? "")@\(database.host):\(database.port)/\(database.database)"
            arguments += ["--executable", "identity=\(try RepositoryPaths.builtExecutable("identity"))"]
        }
        let result = try await PythonScript.run(arguments, input: Data(), environment: environment)
        let failures = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
        return (result.exitCode, failures, String(decoding: result.errors, as: UTF8.self))
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
    /// provider's contract does not have.
    @Test func brokenExpectations_areNamed() async throws {
        let result = try await Self.check("static", consumers: Self.cases.appendingPathComponent("broken-contract"))
        #expect(result.exitCode == 1)
        let prefix = "broken.json: rendezvous."
        #expect(Set(result.failures) == [
            prefix + "identity.v1.Identity/GetSigningKeys: reads keys.fingerprint: rendezvous.identity.v1.SigningKey has no field fingerprint",
            prefix + "identity.v1.Identity/GetSigningKeys: reads max_age: rendezvous.identity.v1.SigningKeySet has no field max_age",
            prefix + "identity.v1.Identity/GetSigningKey: rendezvous.identity.v1.Identity has no RPC GetSigningKey",
            prefix + "identity.v1.Identity/GetAccount: returns rendezvous.identity.v1.Account, not rendezvous.identity.v1.AuthSession",
            prefix + "identity.v1.Identity/GetAccount: reads account.id: rendezvous.identity.v1.Account has no field account",
            prefix + "events.v1.EventStream/WatchEvents: streaming is server, the consumer expects None",
            prefix + "events.v1.EventStream/WatchEvents: sends after: rendezvous.events.v1.WatchEventsRequest has no field after",
            prefix + "events.v1.EventStream/WatchEvents: reads cursor.value: cursor is not a message",
        ], "\(result.log)")
    }

    /// A field the contract has but the provider leaves empty fails the live check by name.
    @Test func aFieldTheProviderLeavesEmpty_failsTheLiveCheck() async throws {
        let result = try await Self.check("live", consumers: Self.cases.appendingPathComponent("empty-field"))
        #expect(result.exitCode == 1)
        #expect(result.failures == [
            "empty.json: rendezvous.identity.v1.DevicesInternal/ListActivePushTokens: the provider leaves tokens.inactive_reason empty, and the consumer reads it",
        ], "\(result.log)")
    }
}
