import Contracts
import Foundation
import RPC

/// The identity workloads. GetProfile and UpdateProfile join here once Profiles lands: a
/// `Workload` whose `start` signs in and whose step calls the Profiles stub with the token.
enum IdentityWorkloads {
    static let app = "swivo"
    static let emailApp = "momento"
    static let password = "benchmark password 1"

    static let all: [Workload] = [anonymousSignIn, refresh, getAccount, emailSignIn]

    /// A new anonymous account and session per request: two inserts and an outbox row.
    static let anonymousSignIn = Workload("anonymous sign-in") { client, _ in
        StatelessStream {
            _ = try await client.signInAnonymously(.init(app: app, deviceName: "bench"))
        }
    }

    /// Each stream walks its own chain of refresh tokens: every request spends the token the
    /// previous one returned (a shared token would be reuse and revoke the session).
    static let refresh = Workload("token refresh") { client, _ in
        let session = try await client.signInAnonymously(.init(app: app, deviceName: "bench"))
        return RefreshChain(client: client, refreshToken: session.refreshToken)
    }

    /// An authenticated primary-key read: token verification plus one query. Stands in for
    /// GetProfile until Profiles exists.
    static let getAccount = Workload("get account") { client, _ in
        let session = try await client.signInAnonymously(.init(app: app, deviceName: "bench"))
        let options = CallOptions.bearer(session.accessToken)
        return StatelessStream { _ = try await client.getAccount(options: options) }
    }

    /// Email sign-in: one scrypt verification per request (production cost), plus a session.
    static let emailSignIn = Workload("email sign-in (scrypt)", isHashing: true) { client, stream in
        let email = "bench-\(UUID().uuidString.prefix(12).lowercased())-\(stream)@example.com"
        _ = try await client.signUpWithEmail(.init(app: emailApp, email: email, password: password, deviceName: "bench"))
        return StatelessStream {
            _ = try await client.signInWithEmail(.init(app: emailApp, email: email, password: password, deviceName: "bench"))
        }
    }
}

/// A stream of refreshes along one token chain.
struct RefreshChain: BenchStream {
    let client: IdentityClient
    var refreshToken: String

    mutating func step() async throws {
        refreshToken = try await client.refreshSession(.init(refreshToken: refreshToken)).refreshToken
    }
}
