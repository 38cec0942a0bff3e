import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import Journeys
import TestSupport

/// The people the load is made of and how they come in: app installs through the stack's edge
/// (each its own connection, as each phone has), ÉLITE members admitted by a moderator, and the
/// operator's grants. Every client reports its calls to `book`.
struct Population: Sendable {
    let stack: JourneyStack
    let book: CallBook
    let moderator: GatewayClient

    static let password = "correct horse battery staple"

    static func make(stack: JourneyStack, book: CallBook) async throws -> Population {
        let moderator = try makeClient(stack: stack, book: book, app: "elite")
        let account = try await moderator.identity.signUpWithEmail(email("chaos-mod"), password: password)
        try await stack.grantRole("admin", to: account.id, app: "elite")
        _ = try await moderator.identity.refreshSession()
        return Population(stack: stack, book: book, moderator: moderator)
    }

    /// A new install of `app`; `retries` off shows the raw status of each call (the probes).
    func client(_ app: String, retries: Bool = true, deadline: Duration = .seconds(10)) throws -> GatewayClient {
        try Self.makeClient(stack: stack, book: retries ? book : nil, app: app, retries: retries, deadline: deadline)
    }

    private static func makeClient(stack: JourneyStack, book: CallBook?, app: String, retries: Bool = true,
                                   deadline: Duration = .seconds(10)) throws -> GatewayClient {
        var configuration = GatewayConfiguration(host: stack.edgeHost, port: stack.edgePort, security: stack.edgeSecurity, app: app,
                                                 deviceName: "chaos")
        configuration.defaultDeadline = deadline
        if !retries { configuration.retryPolicy = .none }
        if let book { configuration.callObserver = { method, _, error in book.record(method, error) } }
        return try GatewayClient(configuration: configuration, tokenStore: InMemoryTokenStore())
    }

    /// An admitted ÉLITE member with a device token registered for pushes, on `client` (a new
    /// install of the app when nil).
    func eliteMember(on given: GatewayClient? = nil) async throws -> Member {
        let client = try given ?? client("elite")
        do {
            let account = try await client.identity.signUpWithEmail(Self.email("chaos"), password: Self.password)
            _ = try await moderator.membership.approveMember(accountID: account.id)
            _ = try await client.identity.refreshSession()
            // Discovery shows (and lets others like) only members with an active profile.
            var fields = Profiles.ProfileFields()
            fields.displayName = "Member"
            fields.bio = "Jazz, sailing and Cuban food"
            fields.location = Profiles.GeoPoint(latitude: 40.7, longitude: -74.0)
            fields.active = true
            _ = try await client.profiles.updateProfile(fields, mask: ["display_name", "bio", "location", "active"])
            let token = JourneyContext.deviceToken()
            _ = try await client.devices.registerPushToken(token, platform: .apns, environment: .production, deviceID: "phone")
            return Member(client: client, accountID: account.id, deviceToken: token)
        } catch {
            client.close()
            throw error
        }
    }

    /// An anonymous install of `app` with a device token registered.
    func anonymous(_ app: String) async throws -> Member {
        let client = try client(app)
        do {
            let account = try await client.identity.signInAnonymously()
            let token = JourneyContext.deviceToken()
            _ = try await client.devices.registerPushToken(token, platform: .apns, environment: .production, deviceID: "phone")
            return Member(client: client, accountID: account.id, deviceToken: token)
        } catch {
            client.close()
            throw error
        }
    }

    /// Calls `call` again while it fails with `reason` (something another service has not yet
    /// learned from an event), or with a retriable status a fault caused, for up to `patience`.
    static func persisting<T: Sendable>(while reasons: Set<String> = [], patience: Duration = .seconds(60),
                                        _ call: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                return try await call()
            } catch let error as GatewayError where ContinuousClock.now < deadline
                && (error.code == .unavailable || error.code == .deadlineExceeded || reasons.contains(error.reason ?? "")) {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    static func email(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(13).lowercased())@example.com" }
}

/// One app install and its account.
struct Member: Sendable {
    let client: GatewayClient
    let accountID: String
    let deviceToken: String
}
