import Contracts
import Foundation
import RPC

/// The identity workloads: each a `Workload` whose `start` readies a stream (signs in) and
/// whose step is the timed call.
enum IdentityWorkloads {
    static let app = "swivo"
    static let emailApp = "momento"
    static let password = "benchmark password 1"

    static let all: [Workload] = [anonymousSignIn, refresh, getAccount, getProfile, updateProfile, emailSignIn]

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

    /// An authenticated primary-key read: token verification plus one query.
    static let getAccount = Workload("get account") { client, _ in
        let session = try await client.signInAnonymously(.init(app: app, deviceName: "bench"))
        let options = CallOptions.bearer(session.accessToken)
        return StatelessStream { _ = try await client.getAccount(options: options) }
    }

    /// Another member's profile: token verification, the visibility rules (same app, active,
    /// not blocked either way) and the profile with its distance from the reader.
    static let getProfile = Workload("get profile") { client, stream in
        let profiles = ProfilesClient(client: client.client)
        let reader = try await client.signInAnonymously(.init(app: app, deviceName: "bench"))
        let member = try await client.signInAnonymously(.init(app: app, deviceName: "bench"))
        for (session, latitude) in [(reader, 52.52), (member, 52.50)] {
            _ = try await profiles.updateProfile(
                .init(fields: benchFields(stream: stream, latitude: latitude), updateMask: ["bio", "tags", "location"]),
                options: .bearer(session.accessToken))
        }
        let request = Profiles.GetProfileRequest(accountID: member.account?.id ?? "")
        let options = CallOptions.bearer(reader.accessToken)
        return StatelessStream { _ = try await profiles.getProfile(request, options: options) }
    }

    /// The caller's own profile: validation, an upsert and a `ProfileUpdated` outbox row in one
    /// transaction.
    static let updateProfile = Workload("update profile") { client, stream in
        let profiles = ProfilesClient(client: client.client)
        let session = try await client.signInAnonymously(.init(app: app, deviceName: "bench"))
        let options = CallOptions.bearer(session.accessToken)
        return UpdateChain(profiles: profiles, options: options, stream: stream)
    }

    static func benchFields(stream: Int, latitude: Double) -> Profiles.ProfileFields {
        var fields = Profiles.ProfileFields()
        fields.bio = "Benchmark stream \(stream): coffee, climbing and long walks."
        fields.tags = ["coffee", "climbing", "walks"]
        fields.location = Profiles.GeoPoint(latitude: latitude, longitude: 13.40)
        return fields
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

/// A stream of profile updates whose bio changes every time (so every write is real).
struct UpdateChain: BenchStream {
    let profiles: ProfilesClient
    let options: CallOptions
    let stream: Int
    var count = 0

    mutating func step() async throws {
        count += 1
        var fields = IdentityWorkloads.benchFields(stream: stream, latitude: 52.52)
        fields.bio += " #\(count)"
        _ = try await profiles.updateProfile(.init(fields: fields, updateMask: ["bio", "tags", "location"]), options: options)
    }
}
