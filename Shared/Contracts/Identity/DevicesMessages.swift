public import Wire

/// Messages of `rendezvous.identity.v1.Devices` and `DevicesInternal`
/// (proto-docs/rendezvous/identity/v1/devices.proto).
public enum Devices {
    /// The app-facing service: the caller's own push tokens.
    public static let serviceName = "rendezvous.identity.v1.Devices"
    /// The service for services inside the deployment (service credential required).
    public static let internalServiceName = "rendezvous.identity.v1.DevicesInternal"

    /// rendezvous.identity.v1.PushPlatform.
    public struct PushPlatform: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = PushPlatform(rawValue: 0)
        public static let apns = PushPlatform(rawValue: 1)
        public static let fcm = PushPlatform(rawValue: 2)
    }

    /// rendezvous.identity.v1.PushEnvironment.
    public struct PushEnvironment: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = PushEnvironment(rawValue: 0)
        public static let sandbox = PushEnvironment(rawValue: 1)
        public static let production = PushEnvironment(rawValue: 2)
    }

    /// rendezvous.identity.v1.PushTokenInactiveReason.
    public struct PushTokenInactiveReason: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = PushTokenInactiveReason(rawValue: 0)
        public static let unregistered = PushTokenInactiveReason(rawValue: 1)
        public static let badDeviceToken = PushTokenInactiveReason(rawValue: 2)
        public static let notForTopic = PushTokenInactiveReason(rawValue: 3)
        public static let replaced = PushTokenInactiveReason(rawValue: 4)
        public static let tooManyDevices = PushTokenInactiveReason(rawValue: 5)
    }

    /// rendezvous.identity.v1.PushToken: token = 1, platform = 2, environment = 3,
    /// device_id = 4, app_version = 5, active = 6, inactive_reason = 7, created_at = 8,
    /// last_seen_at = 9, account_id = 10, app = 11.
    public struct PushToken: ProtoMessage {
        public var token = ""
        public var platform = PushPlatform.unspecified
        public var environment = PushEnvironment.unspecified
        public var deviceID = ""
        public var appVersion = ""
        public var active = false
        public var inactiveReason = PushTokenInactiveReason.unspecified
        public var createdAt: Timestamp?
        public var lastSeenAt: Timestamp?
        public var accountID = ""
        public var app = ""

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !token.isEmpty { writer.writeString(field: 1, token) }
            if platform.rawValue != 0 { writer.writeEnum(field: 2, platform) }
            if environment.rawValue != 0 { writer.writeEnum(field: 3, environment) }
            if !deviceID.isEmpty { writer.writeString(field: 4, deviceID) }
            if !appVersion.isEmpty { writer.writeString(field: 5, appVersion) }
            if active { writer.writeBool(field: 6, active) }
            if inactiveReason.rawValue != 0 { writer.writeEnum(field: 7, inactiveReason) }
            if let createdAt { writer.writeMessage(field: 8, createdAt) }
            if let lastSeenAt { writer.writeMessage(field: 9, lastSeenAt) }
            if !accountID.isEmpty { writer.writeString(field: 10, accountID) }
            if !app.isEmpty { writer.writeString(field: 11, app) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: token = try reader.readString()
            case 2: platform = try reader.readEnum(as: PushPlatform.self)
            case 3: environment = try reader.readEnum(as: PushEnvironment.self)
            case 4: deviceID = try reader.readString()
            case 5: appVersion = try reader.readString()
            case 6: active = try reader.readBool()
            case 7: inactiveReason = try reader.readEnum(as: PushTokenInactiveReason.self)
            case 8: createdAt = try reader.mergeMessage(createdAt)
            case 9: lastSeenAt = try reader.mergeMessage(lastSeenAt)
            case 10: accountID = try reader.readString()
            case 11: app = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.RegisterPushTokenRequest: token = 1, platform = 2,
    /// environment = 3, device_id = 4, app_version = 5.
    public struct RegisterPushTokenRequest: ProtoMessage {
        public var token = ""
        public var platform = PushPlatform.unspecified
        public var environment = PushEnvironment.unspecified
        public var deviceID = ""
        public var appVersion = ""

        public init() {}

        public init(token: String, platform: PushPlatform, environment: PushEnvironment = .unspecified,
                    deviceID: String, appVersion: String = "") {
            self.token = token
            self.platform = platform
            self.environment = environment
            self.deviceID = deviceID
            self.appVersion = appVersion
        }

        public func encode(to writer: inout ProtoWriter) {
            if !token.isEmpty { writer.writeString(field: 1, token) }
            if platform.rawValue != 0 { writer.writeEnum(field: 2, platform) }
            if environment.rawValue != 0 { writer.writeEnum(field: 3, environment) }
            if !deviceID.isEmpty { writer.writeString(field: 4, deviceID) }
            if !appVersion.isEmpty { writer.writeString(field: 5, appVersion) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: token = try reader.readString()
            case 2: platform = try reader.readEnum(as: PushPlatform.self)
            case 3: environment = try reader.readEnum(as: PushEnvironment.self)
            case 4: deviceID = try reader.readString()
            case 5: appVersion = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.RefreshPushTokenRequest: old_token = 1, new_token = 2,
    /// app_version = 3.
    public struct RefreshPushTokenRequest: ProtoMessage {
        public var oldToken = ""
        public var newToken = ""
        public var appVersion = ""

        public init() {}

        public init(oldToken: String, newToken: String, appVersion: String = "") {
            self.oldToken = oldToken
            self.newToken = newToken
            self.appVersion = appVersion
        }

        public func encode(to writer: inout ProtoWriter) {
            if !oldToken.isEmpty { writer.writeString(field: 1, oldToken) }
            if !newToken.isEmpty { writer.writeString(field: 2, newToken) }
            if !appVersion.isEmpty { writer.writeString(field: 3, appVersion) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: oldToken = try reader.readString()
            case 2: newToken = try reader.readString()
            case 3: appVersion = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.UnregisterPushTokenRequest: token = 1.
    public struct UnregisterPushTokenRequest: ProtoMessage {
        public var token = ""

        public init() {}

        public init(token: String) { self.token = token }

        public func encode(to writer: inout ProtoWriter) {
            if !token.isEmpty { writer.writeString(field: 1, token) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: token = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.UnregisterPushTokenResponse: removed = 1.
    public struct UnregisterPushTokenResponse: ProtoMessage {
        public var removed = false

        public init() {}

        public init(removed: Bool) { self.removed = removed }

        public func encode(to writer: inout ProtoWriter) {
            if removed { writer.writeBool(field: 1, removed) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: removed = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListMyPushTokensRequest: no fields.
    public struct ListMyPushTokensRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.ListMyPushTokensResponse: tokens = 1.
    public struct ListMyPushTokensResponse: ProtoMessage {
        public var tokens: [PushToken] = []

        public init() {}

        public init(tokens: [PushToken]) { self.tokens = tokens }

        public func encode(to writer: inout ProtoWriter) {
            for token in tokens { writer.writeMessage(field: 1, token) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: tokens.append(try reader.readMessage(PushToken.self))
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListActivePushTokensRequest: app = 1, account_ids = 2.
    public struct ListActivePushTokensRequest: ProtoMessage {
        public var app = ""
        public var accountIDs: [String] = []

        public init() {}

        public init(app: String, accountIDs: [String]) {
            self.app = app
            self.accountIDs = accountIDs
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            for accountID in accountIDs { writer.writeString(field: 2, accountID) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: accountIDs.append(try reader.readString())
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListActivePushTokensResponse: tokens = 1.
    public struct ListActivePushTokensResponse: ProtoMessage {
        public var tokens: [PushToken] = []

        public init() {}

        public init(tokens: [PushToken]) { self.tokens = tokens }

        public func encode(to writer: inout ProtoWriter) {
            for token in tokens { writer.writeMessage(field: 1, token) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: tokens.append(try reader.readMessage(PushToken.self))
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.MarkPushTokenInactiveRequest: app = 1, token = 2, reason = 3,
    /// invalid_since = 4.
    public struct MarkPushTokenInactiveRequest: ProtoMessage {
        public var app = ""
        public var token = ""
        public var reason = PushTokenInactiveReason.unspecified
        public var invalidSince: Timestamp?

        public init() {}

        public init(app: String, token: String, reason: PushTokenInactiveReason, invalidSince: Timestamp? = nil) {
            self.app = app
            self.token = token
            self.reason = reason
            self.invalidSince = invalidSince
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if !token.isEmpty { writer.writeString(field: 2, token) }
            if reason.rawValue != 0 { writer.writeEnum(field: 3, reason) }
            if let invalidSince { writer.writeMessage(field: 4, invalidSince) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: token = try reader.readString()
            case 3: reason = try reader.readEnum(as: PushTokenInactiveReason.self)
            case 4: invalidSince = try reader.mergeMessage(invalidSince)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.MarkPushTokenInactiveResponse: deactivated = 1.
    public struct MarkPushTokenInactiveResponse: ProtoMessage {
        public var deactivated = false

        public init() {}

        public init(deactivated: Bool) { self.deactivated = deactivated }

        public func encode(to writer: inout ProtoWriter) {
            if deactivated { writer.writeBool(field: 1, deactivated) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: deactivated = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }
}
