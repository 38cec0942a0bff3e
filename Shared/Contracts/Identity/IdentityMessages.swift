public import Wire

/// Messages of `rendezvous.identity.v1` (proto-docs/rendezvous/identity/v1/identity.proto).
public enum Identity {
    /// The Identity service.
    public static let serviceName = "rendezvous.identity.v1.Identity"

    /// rendezvous.identity.v1.SignInAnonymouslyRequest: app = 1, device_name = 2.
    public struct SignInAnonymouslyRequest: ProtoMessage {
        public var app = ""
        public var deviceName = ""

        public init() {}

        public init(app: String, deviceName: String = "") {
            self.app = app
            self.deviceName = deviceName
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if !deviceName.isEmpty { writer.writeString(field: 2, deviceName) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: deviceName = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.SignUpWithEmailRequest: app = 1, email = 2, password = 3,
    /// device_name = 4, referral_code = 5.
    public struct SignUpWithEmailRequest: ProtoMessage {
        public var app = ""
        public var email = ""
        public var password = ""
        public var deviceName = ""
        public var referralCode = ""

        public init() {}

        public init(app: String, email: String, password: String, deviceName: String = "") {
            self.app = app
            self.email = email
            self.password = password
            self.deviceName = deviceName
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if !email.isEmpty { writer.writeString(field: 2, email) }
            if !password.isEmpty { writer.writeString(field: 3, password) }
            if !deviceName.isEmpty { writer.writeString(field: 4, deviceName) }
            if !referralCode.isEmpty { writer.writeString(field: 5, referralCode) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: email = try reader.readString()
            case 3: password = try reader.readString()
            case 4: deviceName = try reader.readString()
            case 5: referralCode = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.SignInWithEmailRequest: app = 1, email = 2, password = 3,
    /// device_name = 4.
    public struct SignInWithEmailRequest: ProtoMessage {
        public var app = ""
        public var email = ""
        public var password = ""
        public var deviceName = ""

        public init() {}

        public init(app: String, email: String, password: String, deviceName: String = "") {
            self.app = app
            self.email = email
            self.password = password
            self.deviceName = deviceName
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if !email.isEmpty { writer.writeString(field: 2, email) }
            if !password.isEmpty { writer.writeString(field: 3, password) }
            if !deviceName.isEmpty { writer.writeString(field: 4, deviceName) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: email = try reader.readString()
            case 3: password = try reader.readString()
            case 4: deviceName = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.RefreshSessionRequest: refresh_token = 1.
    public struct RefreshSessionRequest: ProtoMessage {
        public var refreshToken = ""

        public init() {}

        public init(refreshToken: String) { self.refreshToken = refreshToken }

        public func encode(to writer: inout ProtoWriter) {
            if !refreshToken.isEmpty { writer.writeString(field: 1, refreshToken) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: refreshToken = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.AuthSession: account = 1, access_token = 2,
    /// access_token_expires_at = 3, refresh_token = 4, refresh_token_expires_at = 5,
    /// session_id = 6.
    public struct AuthSession: ProtoMessage {
        public var account: Account?
        public var accessToken = ""
        public var accessTokenExpiresAt: Timestamp?
        public var refreshToken = ""
        public var refreshTokenExpiresAt: Timestamp?
        public var sessionID = ""

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if let account { writer.writeMessage(field: 1, account) }
            if !accessToken.isEmpty { writer.writeString(field: 2, accessToken) }
            if let accessTokenExpiresAt { writer.writeMessage(field: 3, accessTokenExpiresAt) }
            if !refreshToken.isEmpty { writer.writeString(field: 4, refreshToken) }
            if let refreshTokenExpiresAt { writer.writeMessage(field: 5, refreshTokenExpiresAt) }
            if !sessionID.isEmpty { writer.writeString(field: 6, sessionID) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: account = try reader.mergeMessage(account)
            case 2: accessToken = try reader.readString()
            case 3: accessTokenExpiresAt = try reader.mergeMessage(accessTokenExpiresAt)
            case 4: refreshToken = try reader.readString()
            case 5: refreshTokenExpiresAt = try reader.mergeMessage(refreshTokenExpiresAt)
            case 6: sessionID = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.Account: id = 1, app = 2, username = 3, email = 4, role = 5,
    /// tier = 6, membership_status = 7, anonymous = 8, created_at = 9, phone = 10,
    /// sign_in_methods = 11.
    public struct Account: ProtoMessage {
        public var id = ""
        public var app = ""
        public var username = ""
        public var email = ""
        public var role = ""
        public var tier = ""
        public var membershipStatus = ""
        public var anonymous = false
        public var createdAt: Timestamp?
        public var phone = ""
        public var signInMethods: [String] = []

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !id.isEmpty { writer.writeString(field: 1, id) }
            if !app.isEmpty { writer.writeString(field: 2, app) }
            if !username.isEmpty { writer.writeString(field: 3, username) }
            if !email.isEmpty { writer.writeString(field: 4, email) }
            if !role.isEmpty { writer.writeString(field: 5, role) }
            if !tier.isEmpty { writer.writeString(field: 6, tier) }
            if !membershipStatus.isEmpty { writer.writeString(field: 7, membershipStatus) }
            if anonymous { writer.writeBool(field: 8, anonymous) }
            if let createdAt { writer.writeMessage(field: 9, createdAt) }
            if !phone.isEmpty { writer.writeString(field: 10, phone) }
            for method in signInMethods { writer.writeString(field: 11, method) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: id = try reader.readString()
            case 2: app = try reader.readString()
            case 3: username = try reader.readString()
            case 4: email = try reader.readString()
            case 5: role = try reader.readString()
            case 6: tier = try reader.readString()
            case 7: membershipStatus = try reader.readString()
            case 8: anonymous = try reader.readBool()
            case 9: createdAt = try reader.mergeMessage(createdAt)
            case 10: phone = try reader.readString()
            case 11: signInMethods.append(try reader.readString())
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.SignOutRequest: session_id = 1, all_sessions = 2.
    public struct SignOutRequest: ProtoMessage {
        public var sessionID = ""
        public var allSessions = false

        public init() {}

        public init(sessionID: String = "", allSessions: Bool = false) {
            self.sessionID = sessionID
            self.allSessions = allSessions
        }

        public func encode(to writer: inout ProtoWriter) {
            if !sessionID.isEmpty { writer.writeString(field: 1, sessionID) }
            if allSessions { writer.writeBool(field: 2, allSessions) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: sessionID = try reader.readString()
            case 2: allSessions = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.SignOutResponse: revoked_sessions = 1.
    public struct SignOutResponse: ProtoMessage {
        public var revokedSessions: Int32 = 0

        public init() {}

        public init(revokedSessions: Int32) { self.revokedSessions = revokedSessions }

        public func encode(to writer: inout ProtoWriter) {
            if revokedSessions != 0 { writer.writeInt32(field: 1, revokedSessions) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: revokedSessions = try reader.readInt32()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListSessionsRequest: no fields.
    public struct ListSessionsRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.Session: id = 1, device_name = 2, created_at = 3,
    /// last_used_at = 4, expires_at = 5, current = 6.
    public struct Session: ProtoMessage {
        public var id = ""
        public var deviceName = ""
        public var createdAt: Timestamp?
        public var lastUsedAt: Timestamp?
        public var expiresAt: Timestamp?
        public var current = false

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !id.isEmpty { writer.writeString(field: 1, id) }
            if !deviceName.isEmpty { writer.writeString(field: 2, deviceName) }
            if let createdAt { writer.writeMessage(field: 3, createdAt) }
            if let lastUsedAt { writer.writeMessage(field: 4, lastUsedAt) }
            if let expiresAt { writer.writeMessage(field: 5, expiresAt) }
            if current { writer.writeBool(field: 6, current) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: id = try reader.readString()
            case 2: deviceName = try reader.readString()
            case 3: createdAt = try reader.mergeMessage(createdAt)
            case 4: lastUsedAt = try reader.mergeMessage(lastUsedAt)
            case 5: expiresAt = try reader.mergeMessage(expiresAt)
            case 6: current = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListSessionsResponse: sessions = 1.
    public struct ListSessionsResponse: ProtoMessage {
        public var sessions: [Session] = []

        public init() {}

        public init(sessions: [Session]) { self.sessions = sessions }

        public func encode(to writer: inout ProtoWriter) {
            for session in sessions { writer.writeMessage(field: 1, session) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: sessions.append(try reader.readMessage(Session.self))
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.GetAccountRequest: no fields.
    public struct GetAccountRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.GetSigningKeysRequest: no fields.
    public struct GetSigningKeysRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.SigningKey: kid = 1, kty = 2, crv = 3, alg = 4, use = 5, x = 6,
    /// y = 7 (the members of an EC JWK).
    public struct SigningKey: ProtoMessage {
        public var kid = ""
        public var kty = ""
        public var crv = ""
        public var alg = ""
        public var use = ""
        public var x = ""
        public var y = ""

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !kid.isEmpty { writer.writeString(field: 1, kid) }
            if !kty.isEmpty { writer.writeString(field: 2, kty) }
            if !crv.isEmpty { writer.writeString(field: 3, crv) }
            if !alg.isEmpty { writer.writeString(field: 4, alg) }
            if !use.isEmpty { writer.writeString(field: 5, use) }
            if !x.isEmpty { writer.writeString(field: 6, x) }
            if !y.isEmpty { writer.writeString(field: 7, y) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: kid = try reader.readString()
            case 2: kty = try reader.readString()
            case 3: crv = try reader.readString()
            case 4: alg = try reader.readString()
            case 5: use = try reader.readString()
            case 6: x = try reader.readString()
            case 7: y = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.SigningKeySet: keys = 1, max_age_seconds = 2.
    public struct SigningKeySet: ProtoMessage {
        public var keys: [SigningKey] = []
        public var maxAgeSeconds: Int32 = 0

        public init() {}

        public init(keys: [SigningKey], maxAgeSeconds: Int32) {
            self.keys = keys
            self.maxAgeSeconds = maxAgeSeconds
        }

        public func encode(to writer: inout ProtoWriter) {
            for key in keys { writer.writeMessage(field: 1, key) }
            if maxAgeSeconds != 0 { writer.writeInt32(field: 2, maxAgeSeconds) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: keys.append(try reader.readMessage(SigningKey.self))
            case 2: maxAgeSeconds = try reader.readInt32()
            default: try reader.skipField()
            }
        }
    }
}
