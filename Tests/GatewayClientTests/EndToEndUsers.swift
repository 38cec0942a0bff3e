import Contracts
import CryptoCore
import Foundation
import GatewayClient
import RPC
import Synchronization
import TestSupport
import Testing

/// One signed-in user of an app: its own client (its own token store) and its account.
struct EndToEndUser: Sendable {
    let client: GatewayClient
    let account: Identity.Account

    var id: String { account.id }

    /// The claims of the session's current access token (read, not verified: Identity made it).
    func tokenClaims() throws -> JWTClaims {
        let token = try #require(try client.currentSession()).accessToken
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        return try JWTClaims(payload: Base64URL.decode(parts[1]))
    }
}

/// The users one test signs up, each through GatewayClient like an app; admins and hosts get
/// their role the way an operator gives the first one (`identity grant-role`). `close()` closes
/// every client the test made.
final class EndToEndUsers: Sendable {
    static let password = "correct horse battery staple"

    private let clients = Mutex<[GatewayClient]>([])

    /// A client of `app` that is not signed in (a paywall, a waitlist page).
    func signedOut(_ app: String) throws -> GatewayClient {
        let client = try EndToEnd.client(app: app)
        clients.withLock { $0.append(client) }
        return client
    }

    /// A new email account of `app`, signed in; its membership status is the app's (ÉLITE:
    /// waitlisted).
    func signUp(_ app: String, email: String = EndToEnd.uniqueEmail()) async throws -> EndToEndUser {
        let client = try signedOut(app)
        return EndToEndUser(client: client, account: try await client.identity.signUpWithEmail(email, password: Self.password))
    }

    /// A new account of `app` with `role`, given by `identity grant-role`.
    func signUp(_ app: String, role: String) async throws -> EndToEndUser {
        let user = try await signUp(app)
        try await EndToEnd.grantRole(role, to: user.id, app: app)
        return user
    }

    func close() {
        clients.withLock { clients in
            for client in clients { client.close() }
        }
    }
}

extension EndToEnd {
    /// Runs `identity grant-role` against the suite's database, as an operator would.
    static func grantRole(_ role: String, to accountID: String, app: String) async throws {
        let result = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", app, "--account-id", accountID, "--role", role],
            environment: ["RV_PG_URL_IDENTITY": postgresURL(role: "identity")], timeout: .seconds(60))
        guard result.exitCode == 0 else {
            throw SubprocessError(message: "identity grant-role exited \(result.exitCode): \(result.output)")
        }
    }
}

/// Expects `error` to be what a user would be shown for `code` and `reason`.
func expectFailure(_ error: GatewayError?, _ code: StatusCode, _ reason: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error?.code == code, "code of \(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.reason == reason, "reason of \(String(describing: error))", sourceLocation: sourceLocation)
}

extension GatewayClient {
    /// Signs up by email and, in an invite-only app (ÉLITE), is admitted at once
    /// (`TestAdmission`, standing in for the committee) with a refreshed session: a member for
    /// suites whose subject is not admission.
    func signUpAdmitted(_ email: String, password: String = EndToEndUsers.password) async throws -> Identity.Account {
        let account = try await identity.signUpWithEmail(email, password: password)
        guard account.membershipStatus == "waitlisted" else { return account }
        try await TestAdmission.admit(account.id)
        _ = try await identity.refreshSession()
        return try await identity.getAccount()
    }
}
