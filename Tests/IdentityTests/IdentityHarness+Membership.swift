import Contracts
import CryptoCore
import Foundation
@testable import Identity
import Postgres
import RPC
import TestSupport
import Testing
import Wire

/// What the membership tests share: the Membership client, accounts in a given state, an app
/// of one's own (so waitlist positions are absolute), and the outbox's events.
extension IdentityHarness {
    var membership: MembershipClient { MembershipClient(client: rpc) }

    /// A new email account of `app` (its policy decides its membership status).
    func signUp(_ app: String) async throws -> Identity.AuthSession {
        try await client.signUpWithEmail(.init(app: app, email: Self.uniqueEmail(), password: "correct horse battery"))
    }

    /// A new account of `app` whose membership status is then set to `status` (as the
    /// committee would), with a token that carries it.
    func member(_ app: String, status: String = "active") async throws -> Identity.AuthSession {
        let session = try await signUp(app)
        try await execute("UPDATE identity.accounts SET membership_status = $2 WHERE id = $1",
                          [.uuid(try Self.id(session)), .text(status)])
        return try await client.refreshSession(.init(refreshToken: session.refreshToken))
    }

    /// A new admin of `app` (an active member, so never on the waitlist), with a token that
    /// carries the role.
    func admin(_ app: String) async throws -> Identity.AuthSession {
        let session = try await signUp(app)
        try await makeAdmin(session.account?.id ?? "")
        try await execute("UPDATE identity.accounts SET membership_status = 'active' WHERE id = $1", [.uuid(try Self.id(session))])
        return try await client.refreshSession(.init(refreshToken: session.refreshToken))
    }

    /// Runs one statement as the identity role.
    func execute(_ sql: String, _ parameters: [PostgresValue] = []) async throws {
        try await pool.withConnection { connection in _ = try await connection.execute(sql, parameters) }
    }

    /// The outbox events of `type` about `aggregateID`, oldest first, decoded as `M`.
    func events<M: ProtoMessage>(_ type: String, about aggregateID: String, as: M.Type) async throws -> [M] {
        try await eventPayloads(type, aggregateID: aggregateID).map { try M(serializedBytes: $0) }
    }

    static func id(_ session: Identity.AuthSession) throws -> UUID {
        try #require(UUID(uuidString: session.account?.id ?? ""))
    }

    /// A policy like `template`'s under a fresh app id, for tests that need an app of their own.
    static func ownApp(like template: String) throws -> AppPolicy {
        var policy = try AppPolicies.standard.policy(for: template)
        policy.id = TestDatabase.uniqueName(template)
        return policy
    }

    /// Starts a harness serving the standard apps plus `extra`, after `configure`.
    static func start(adding extra: [AppPolicy], _ configure: @escaping (inout IdentitySettings) -> Void = { _ in })
        async throws -> IdentityHarness {
        let standard = try AppPolicies.standard.appIDs.sorted().map { try AppPolicies.standard.policy(for: $0) }
        return try await start { settings in
            settings.apps = AppPolicies(standard + extra)
            configure(&settings)
        }
    }
}

/// The claims of an access token, read without verifying it (the service under test made it).
func accessTokenClaims(_ token: String) throws -> JWTClaims {
    let parts = token.split(separator: ".")
    try #require(parts.count == 3)
    return try JWTClaims(payload: Base64URL.decode(parts[1]))
}
