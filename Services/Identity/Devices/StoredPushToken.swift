import Contracts
import Foundation
import Postgres

/// One row of `identity.push_tokens`.
struct StoredPushToken: Sendable, Equatable {
    /// The columns `init(row:)` reads, in order, for a query aliasing the table `t`.
    static let columns = """
        t.id, t.account_id, t.app, t.token, t.platform, t.environment, t.device_id, t.app_version, \
        t.inactive_reason, t.created_at, t.last_seen_at, t.kind
        """

    var id: UUID
    var accountID: UUID
    var app: String
    var token: String
    var platform: PushPlatform
    var environment: PushEnvironment
    var deviceID: String
    var appVersion: String
    /// Nil while the token is active.
    var inactiveReason: PushTokenInactiveReason?
    var createdAt: Date
    var lastSeenAt: Date
    var kind: PushTokenKind

    init(row: PostgresRow) throws {
        id = try row.decode(0)
        accountID = try row.decode(1)
        app = try row.decode(2)
        token = try row.decode(3)
        platform = try Self.decode(PushPlatform.self, try row.decode(4, as: String.self))
        environment = try Self.decode(PushEnvironment.self, try row.decode(5, as: String.self))
        deviceID = try row.decode(6)
        appVersion = try row.decode(7)
        inactiveReason = try row.decode(8, as: String?.self).map { try Self.decode(PushTokenInactiveReason.self, $0) }
        createdAt = try row.decode(9)
        lastSeenAt = try row.decode(10)
        kind = try Self.decode(PushTokenKind.self, try row.decode(11, as: String.self))
    }

    var message: Devices.PushToken {
        var message = Devices.PushToken()
        message.token = token
        message.platform = platform.message
        message.environment = environment.message
        message.deviceID = deviceID
        message.appVersion = appVersion
        message.active = inactiveReason == nil
        message.inactiveReason = inactiveReason?.message ?? .unspecified
        message.createdAt = Timestamp(createdAt)
        message.lastSeenAt = Timestamp(lastSeenAt)
        message.accountID = accountID.uuidString.lowercased()
        message.app = app
        message.kind = kind.message
        return message
    }

    /// The CHECK constraints keep these columns to known values; anything else is a bug.
    private static func decode<T: RawRepresentable>(_ type: T.Type, _ text: String) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            throw PostgresError(code: .decodingFailed, context: "unexpected \(T.self) value")
        }
        return value
    }
}
