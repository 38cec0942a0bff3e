public import Wire

/// Messages of `rendezvous.identity.v1.Membership`
/// (proto-docs/rendezvous/identity/v1/membership.proto): tiers and entitlements, App Store
/// transactions, referral codes, waitlists and their events.
public enum Membership {
    /// The Membership service.
    public static let serviceName = "rendezvous.identity.v1.Membership"

    /// rendezvous.identity.v1.LikesVisibility.
    public struct LikesVisibility: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = LikesVisibility(rawValue: 0)
        public static let hidden = LikesVisibility(rawValue: 1)
        public static let blurred = LikesVisibility(rawValue: 2)
        public static let clear = LikesVisibility(rawValue: 3)
    }

    /// rendezvous.identity.v1.Entitlements: likes_per_day = 1, super_likes_per_day = 2,
    /// see_who_liked_you = 3, read_receipts = 4, advanced_filters = 5, incognito = 6,
    /// boosts_per_month = 7, referral_codes_per_month = 8, priority_in_discovery = 9.
    public struct Entitlements: ProtoMessage {
        /// Likes per day; `unlimited` (-1) for no limit.
        public var likesPerDay: Int32 = 0
        public var superLikesPerDay: Int32 = 0
        public var seeWhoLikedYou = LikesVisibility.unspecified
        public var readReceipts = false
        public var advancedFilters = false
        public var incognito = false
        public var boostsPerMonth: Int32 = 0
        public var referralCodesPerMonth: Int32 = 0
        public var priorityInDiscovery = false

        /// The quota value meaning "no limit".
        public static let unlimited: Int32 = -1

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if likesPerDay != 0 { writer.writeInt32(field: 1, likesPerDay) }
            if superLikesPerDay != 0 { writer.writeInt32(field: 2, superLikesPerDay) }
            if seeWhoLikedYou.rawValue != 0 { writer.writeEnum(field: 3, seeWhoLikedYou) }
            if readReceipts { writer.writeBool(field: 4, readReceipts) }
            if advancedFilters { writer.writeBool(field: 5, advancedFilters) }
            if incognito { writer.writeBool(field: 6, incognito) }
            if boostsPerMonth != 0 { writer.writeInt32(field: 7, boostsPerMonth) }
            if referralCodesPerMonth != 0 { writer.writeInt32(field: 8, referralCodesPerMonth) }
            if priorityInDiscovery { writer.writeBool(field: 9, priorityInDiscovery) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: likesPerDay = try reader.readInt32()
            case 2: superLikesPerDay = try reader.readInt32()
            case 3: seeWhoLikedYou = try reader.readEnum(as: LikesVisibility.self)
            case 4: readReceipts = try reader.readBool()
            case 5: advancedFilters = try reader.readBool()
            case 6: incognito = try reader.readBool()
            case 7: boostsPerMonth = try reader.readInt32()
            case 8: referralCodesPerMonth = try reader.readInt32()
            case 9: priorityInDiscovery = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.Tier: name = 1, display_name = 2, rank = 3, entitlements = 4.
    public struct Tier: ProtoMessage {
        public var name = ""
        public var displayName = ""
        public var rank: Int32 = 0
        public var entitlements: Entitlements?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !name.isEmpty { writer.writeString(field: 1, name) }
            if !displayName.isEmpty { writer.writeString(field: 2, displayName) }
            if rank != 0 { writer.writeInt32(field: 3, rank) }
            if let entitlements { writer.writeMessage(field: 4, entitlements) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: name = try reader.readString()
            case 2: displayName = try reader.readString()
            case 3: rank = try reader.readInt32()
            case 4: entitlements = try reader.mergeMessage(entitlements)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListTiersRequest: app = 1.
    public struct ListTiersRequest: ProtoMessage {
        public var app = ""

        public init() {}

        public init(app: String) { self.app = app }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListTiersResponse: tiers = 1.
    public struct ListTiersResponse: ProtoMessage {
        public var tiers: [Tier] = []

        public init() {}

        public init(tiers: [Tier]) { self.tiers = tiers }

        public func encode(to writer: inout ProtoWriter) {
            for tier in tiers { writer.writeMessage(field: 1, tier) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: tiers.append(try reader.readMessage(Tier.self))
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.GetMyEntitlementsRequest: no fields.
    public struct GetMyEntitlementsRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.MyEntitlements: tier = 1, expires_at = 2.
    public struct MyEntitlements: ProtoMessage {
        public var tier: Tier?
        public var expiresAt: Timestamp?

        public init() {}

        public init(tier: Tier?, expiresAt: Timestamp?) {
            self.tier = tier
            self.expiresAt = expiresAt
        }

        public func encode(to writer: inout ProtoWriter) {
            if let tier { writer.writeMessage(field: 1, tier) }
            if let expiresAt { writer.writeMessage(field: 2, expiresAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: tier = try reader.mergeMessage(tier)
            case 2: expiresAt = try reader.mergeMessage(expiresAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ApplyAppStoreTransactionRequest: signed_transaction = 1.
    public struct ApplyAppStoreTransactionRequest: ProtoMessage {
        public var signedTransaction = ""

        public init() {}

        public init(signedTransaction: String) { self.signedTransaction = signedTransaction }

        public func encode(to writer: inout ProtoWriter) {
            if !signedTransaction.isEmpty { writer.writeString(field: 1, signedTransaction) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: signedTransaction = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ApplyAppStoreTransactionResponse: transaction_id = 1,
    /// original_transaction_id = 2, product_id = 3, granted_tier = 4, expires_at = 5,
    /// entitlements = 6.
    public struct ApplyAppStoreTransactionResponse: ProtoMessage {
        public var transactionID = ""
        public var originalTransactionID = ""
        public var productID = ""
        public var grantedTier = ""
        public var expiresAt: Timestamp?
        public var entitlements: MyEntitlements?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !transactionID.isEmpty { writer.writeString(field: 1, transactionID) }
            if !originalTransactionID.isEmpty { writer.writeString(field: 2, originalTransactionID) }
            if !productID.isEmpty { writer.writeString(field: 3, productID) }
            if !grantedTier.isEmpty { writer.writeString(field: 4, grantedTier) }
            if let expiresAt { writer.writeMessage(field: 5, expiresAt) }
            if let entitlements { writer.writeMessage(field: 6, entitlements) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: transactionID = try reader.readString()
            case 2: originalTransactionID = try reader.readString()
            case 3: productID = try reader.readString()
            case 4: grantedTier = try reader.readString()
            case 5: expiresAt = try reader.mergeMessage(expiresAt)
            case 6: entitlements = try reader.mergeMessage(entitlements)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.SetTierRequest: account_id = 1, tier = 2, expires_at = 3.
    public struct SetTierRequest: ProtoMessage {
        public var accountID = ""
        public var tier = ""
        public var expiresAt: Timestamp?

        public init() {}

        public init(accountID: String, tier: String, expiresAt: Timestamp? = nil) {
            self.accountID = accountID
            self.tier = tier
            self.expiresAt = expiresAt
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !tier.isEmpty { writer.writeString(field: 2, tier) }
            if let expiresAt { writer.writeMessage(field: 3, expiresAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: tier = try reader.readString()
            case 3: expiresAt = try reader.mergeMessage(expiresAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.SetTierResponse: account_id = 1, tier = 2, expires_at = 3.
    public struct SetTierResponse: ProtoMessage {
        public var accountID = ""
        public var tier = ""
        public var expiresAt: Timestamp?

        public init() {}

        public init(accountID: String, tier: String, expiresAt: Timestamp?) {
            self.accountID = accountID
            self.tier = tier
            self.expiresAt = expiresAt
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !tier.isEmpty { writer.writeString(field: 2, tier) }
            if let expiresAt { writer.writeMessage(field: 3, expiresAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: tier = try reader.readString()
            case 3: expiresAt = try reader.mergeMessage(expiresAt)
            default: try reader.skipField()
            }
        }
    }
}
