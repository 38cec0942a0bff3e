public import Wire

/// Messages of `rendezvous.identity.v1` for Apple/Google and phone sign-in, linking and account
/// deletion (proto-docs/rendezvous/identity/v1/identity.proto).
extension Identity {
    /// rendezvous.identity.v1.IdentityProvider: an external identity provider.
    public struct IdentityProvider: ProtoEnum {
        public var rawValue: Int32

        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// IDENTITY_PROVIDER_UNSPECIFIED = 0.
        public static let unspecified = IdentityProvider(rawValue: 0)
        /// IDENTITY_PROVIDER_APPLE = 1.
        public static let apple = IdentityProvider(rawValue: 1)
        /// IDENTITY_PROVIDER_GOOGLE = 2.
        public static let google = IdentityProvider(rawValue: 2)
    }

    /// rendezvous.identity.v1.SignInWithProviderRequest: app = 1, provider = 2, id_token = 3,
    /// raw_nonce = 4, device_name = 5, referral_code = 6.
    public struct SignInWithProviderRequest: ProtoMessage {
        public var app = ""
        public var provider = IdentityProvider.unspecified
        public var idToken = ""
        public var rawNonce = ""
        public var deviceName = ""
        public var referralCode = ""

        public init() {}

        public init(app: String, provider: IdentityProvider, idToken: String, rawNonce: String, deviceName: String = "") {
            self.app = app
            self.provider = provider
            self.idToken = idToken
            self.rawNonce = rawNonce
            self.deviceName = deviceName
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if provider.rawValue != 0 { writer.writeEnum(field: 2, provider) }
            if !idToken.isEmpty { writer.writeString(field: 3, idToken) }
            if !rawNonce.isEmpty { writer.writeString(field: 4, rawNonce) }
            if !deviceName.isEmpty { writer.writeString(field: 5, deviceName) }
            if !referralCode.isEmpty { writer.writeString(field: 6, referralCode) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: provider = try reader.readEnum(as: IdentityProvider.self)
            case 3: idToken = try reader.readString()
            case 4: rawNonce = try reader.readString()
            case 5: deviceName = try reader.readString()
            case 6: referralCode = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.StartPhoneSignInRequest: app = 1, phone = 2.
    public struct StartPhoneSignInRequest: ProtoMessage {
        public var app = ""
        public var phone = ""

        public init() {}

        public init(app: String, phone: String) {
            self.app = app
            self.phone = phone
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if !phone.isEmpty { writer.writeString(field: 2, phone) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: phone = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.StartPhoneSignInResponse: phone = 1, expires_at = 2,
    /// resend_after_seconds = 3.
    public struct StartPhoneSignInResponse: ProtoMessage {
        public var phone = ""
        public var expiresAt: Timestamp?
        public var resendAfterSeconds: Int32 = 0

        public init() {}

        public init(phone: String, expiresAt: Timestamp?, resendAfterSeconds: Int32) {
            self.phone = phone
            self.expiresAt = expiresAt
            self.resendAfterSeconds = resendAfterSeconds
        }

        public func encode(to writer: inout ProtoWriter) {
            if !phone.isEmpty { writer.writeString(field: 1, phone) }
            if let expiresAt { writer.writeMessage(field: 2, expiresAt) }
            if resendAfterSeconds != 0 { writer.writeInt32(field: 3, resendAfterSeconds) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: phone = try reader.readString()
            case 2: expiresAt = try reader.mergeMessage(expiresAt)
            case 3: resendAfterSeconds = try reader.readInt32()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.VerifyPhoneCodeRequest: app = 1, phone = 2, code = 3,
    /// device_name = 4, referral_code = 5.
    public struct VerifyPhoneCodeRequest: ProtoMessage {
        public var app = ""
        public var phone = ""
        public var code = ""
        public var deviceName = ""
        public var referralCode = ""

        public init() {}

        public init(app: String, phone: String, code: String, deviceName: String = "") {
            self.app = app
            self.phone = phone
            self.code = code
            self.deviceName = deviceName
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if !phone.isEmpty { writer.writeString(field: 2, phone) }
            if !code.isEmpty { writer.writeString(field: 3, code) }
            if !deviceName.isEmpty { writer.writeString(field: 4, deviceName) }
            if !referralCode.isEmpty { writer.writeString(field: 5, referralCode) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: phone = try reader.readString()
            case 3: code = try reader.readString()
            case 4: deviceName = try reader.readString()
            case 5: referralCode = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.LinkProviderRequest: provider = 1, id_token = 2, raw_nonce = 3.
    public struct LinkProviderRequest: ProtoMessage {
        public var provider = IdentityProvider.unspecified
        public var idToken = ""
        public var rawNonce = ""

        public init() {}

        public init(provider: IdentityProvider, idToken: String, rawNonce: String) {
            self.provider = provider
            self.idToken = idToken
            self.rawNonce = rawNonce
        }

        public func encode(to writer: inout ProtoWriter) {
            if provider.rawValue != 0 { writer.writeEnum(field: 1, provider) }
            if !idToken.isEmpty { writer.writeString(field: 2, idToken) }
            if !rawNonce.isEmpty { writer.writeString(field: 3, rawNonce) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: provider = try reader.readEnum(as: IdentityProvider.self)
            case 2: idToken = try reader.readString()
            case 3: rawNonce = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.LinkEmailRequest: email = 1, password = 2.
    public struct LinkEmailRequest: ProtoMessage {
        public var email = ""
        public var password = ""

        public init() {}

        public init(email: String, password: String) {
            self.email = email
            self.password = password
        }

        public func encode(to writer: inout ProtoWriter) {
            if !email.isEmpty { writer.writeString(field: 1, email) }
            if !password.isEmpty { writer.writeString(field: 2, password) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: email = try reader.readString()
            case 2: password = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.LinkPhoneRequest: phone = 1, code = 2.
    public struct LinkPhoneRequest: ProtoMessage {
        public var phone = ""
        public var code = ""

        public init() {}

        public init(phone: String, code: String) {
            self.phone = phone
            self.code = code
        }

        public func encode(to writer: inout ProtoWriter) {
            if !phone.isEmpty { writer.writeString(field: 1, phone) }
            if !code.isEmpty { writer.writeString(field: 2, code) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: phone = try reader.readString()
            case 2: code = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.DeleteAccountRequest: no fields.
    public struct DeleteAccountRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.DeleteAccountResponse: deleted_at = 1.
    public struct DeleteAccountResponse: ProtoMessage {
        public var deletedAt: Timestamp?

        public init() {}

        public init(deletedAt: Timestamp?) { self.deletedAt = deletedAt }

        public func encode(to writer: inout ProtoWriter) {
            if let deletedAt { writer.writeMessage(field: 1, deletedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: deletedAt = try reader.mergeMessage(deletedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.AccountDeleted (event payload): account_id = 1, app = 2,
    /// deleted_at = 3.
    public struct AccountDeleted: ProtoMessage {
        public var accountID = ""
        public var app = ""
        public var deletedAt: Timestamp?

        public init() {}

        public init(accountID: String, app: String, deletedAt: Timestamp?) {
            self.accountID = accountID
            self.app = app
            self.deletedAt = deletedAt
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !app.isEmpty { writer.writeString(field: 2, app) }
            if let deletedAt { writer.writeMessage(field: 3, deletedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: app = try reader.readString()
            case 3: deletedAt = try reader.mergeMessage(deletedAt)
            default: try reader.skipField()
            }
        }
    }
}
