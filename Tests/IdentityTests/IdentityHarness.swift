import Auth
import Contracts
import CryptoCore
import Foundation
@testable import Identity
import Postgres
import RPC
import TestSupport
import Testing

/// The identity service in-process: its RPCServer on an ephemeral port against the local
/// Postgres (schema identity, role rv_identity), and a client over a live socket.
final class IdentityHarness: Sendable {
    let pool: PostgresPool
    let identity: IdentityServer
    let server: RPCServer
    let rpc: RPCClient
    let client: IdentityClient

    /// `revocations`: the list the server checks and updates, as the executable's; nil checks none.
    static func start(revocations: RevocationList? = nil,
                      _ configure: (inout IdentitySettings) -> Void = { _ in }) async throws -> IdentityHarness {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "identity"))
        _ = try await Migrator(schema: "identity", migrations: try IdentityMigrations.all()).migrate(pool)
        var settings = IdentitySettings(keyEncryptionKey: KeyEncryptionKey.developmentKey)
        // Cheaper scrypt than production: tests hash many passwords on two cores.
        settings.passwordParameters = PasswordHash.Parameters(n: 1 << 12, r: 8, p: 1)
        configure(&settings)
        let identity = try await IdentityServer.make(pool: pool, settings: settings, revocations: revocations)
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: identity.services,
                                   interceptors: identity.interceptors)
        try server.start()
        let rpc = RPCClient(host: "127.0.0.1", port: server.port)
        return IdentityHarness(pool: pool, identity: identity, server: server, rpc: rpc)
    }

    private init(pool: PostgresPool, identity: IdentityServer, server: RPCServer, rpc: RPCClient) {
        self.pool = pool
        self.identity = identity
        self.server = server
        self.rpc = rpc
        self.client = IdentityClient(client: rpc)
    }

    func stop() async {
        rpc.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
        pool.close()
    }

    /// A fresh email address, so tests can run in parallel against one schema.
    static func uniqueEmail() -> String {
        "\(TestDatabase.uniqueName("user"))@example.com"
    }
}

/// Runs `body` and returns the RPCError it threw (nil if it did not throw one).
func rpcError(_ body: () async throws -> Void) async -> RPCError? {
    do {
        try await body()
        return nil
    } catch let error as RPCError {
        return error
    } catch {
        Issue.record("expected an RPCError, got \(error)")
        return nil
    }
}

extension IdentityHarness {
    /// Makes `accountID` an admin of its app, as an operator would with SQL (or, later, an
    /// existing admin through the API). The next refresh carries the role in its token.
    func makeAdmin(_ accountID: String) async throws {
        try await pool.withConnection { connection in
            _ = try await connection.query("UPDATE identity.accounts SET role = 'admin' WHERE id = $1",
                                           [.uuid(UUID(uuidString: accountID)!)])
        }
    }

    /// How many `type` events the outbox holds for `aggregateID`.
    func eventCount(_ type: String, aggregateID: String) async throws -> Int {
        try await pool.withConnection { connection in
            try await connection.query("SELECT count(*) FROM identity.outbox WHERE type = $1 AND aggregate_id = $2",
                                       [.text(type), .text(aggregateID)])[0].decode(0, as: Int.self)
        }
    }

    /// The payloads of `type` events for `aggregateID`, oldest first.
    func eventPayloads(_ type: String, aggregateID: String) async throws -> [[UInt8]] {
        try await pool.withConnection { connection in
            try await connection.query("""
                SELECT payload FROM identity.outbox WHERE type = $1 AND aggregate_id = $2 ORDER BY cursor
                """, [.text(type), .text(aggregateID)]).map { try $0.decode(0, as: [UInt8].self) }
        }
    }
}
