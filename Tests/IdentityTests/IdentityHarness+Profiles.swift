import Contracts
import Foundation
@testable import Identity
import Postgres
import RPC
import TestSupport
import Testing

/// A signed-in account of one app, as the profile, role and safety tests use it.
struct TestUser: Sendable {
    var id: String
    var app: String
    var username: String
    var accessToken: String

    var options: CallOptions { .bearer(accessToken) }
}

extension IdentityHarness {
    var profiles: ProfilesClient { ProfilesClient(client: rpc) }
    var safety: SafetyClient { SafetyClient(client: rpc) }

    /// A new account of `app`: anonymous where the app allows it, else email and password; in an
    /// invite-only app (ÉLITE) admitted as the committee would, unless `admitted` is false.
    func newUser(_ app: String, admitted: Bool = true) async throws -> TestUser {
        let policy = try AppPolicies.standard.policy(for: app)
        var session = policy.allows(.anonymous)
            ? try await client.signInAnonymously(.init(app: app))
            : try await client.signUpWithEmail(.init(app: app, email: Self.uniqueEmail(), password: "correct horse battery"))
        if admitted, session.account?.membershipStatus == MembershipStatus.waitlisted {
            try await execute("UPDATE identity.accounts SET membership_status = 'active' WHERE id = $1", [.uuid(try Self.id(session))])
            session = try await client.refreshSession(.init(refreshToken: session.refreshToken))
        }
        let account = try #require(session.account)
        return TestUser(id: account.id, app: app, username: account.username, accessToken: session.accessToken)
    }

    /// A new account of `app` with `role` set in the database (as `identity grant-role` would).
    func newUser(_ app: String, role: String) async throws -> TestUser {
        let user = try await newUser(app)
        try await pool.withConnection { connection in
            _ = try await connection.execute("UPDATE identity.accounts SET role = $2 WHERE id = $1",
                                             [.uuid(UUID(uuidString: user.id)), .text(role)])
        }
        return user
    }

    /// Sets `mask`'s fields of `user`'s profile to their values in `fields`.
    @discardableResult
    func update(_ user: TestUser, _ mask: [String], _ fields: (inout Profiles.ProfileFields) -> Void = { _ in }) async throws
        -> Profiles.Profile {
        var values = Profiles.ProfileFields()
        fields(&values)
        return try await profiles.updateProfile(.init(fields: values, updateMask: mask), options: user.options)
    }

}

/// Expects `error` to carry `code` and `reason`.
func expectError(_ error: RPCError?, _ code: StatusCode, _ reason: String,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error?.code == code, "code of \(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.reason == reason, "reason of \(String(describing: error))", sourceLocation: sourceLocation)
}
