public import Wire

/// Payloads of the events Membership appends to identity's outbox, named by the event type.
extension Membership {
    /// rendezvous.identity.v1.ReferralUsed: code = 1, referrer_account_id = 2,
    /// redeemer_account_id = 3, used_at = 4.
    public struct ReferralUsed: ProtoMessage {
        public var code = ""
        public var referrerAccountID = ""
        public var redeemerAccountID = ""
        public var usedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !code.isEmpty { writer.writeString(field: 1, code) }
            if !referrerAccountID.isEmpty { writer.writeString(field: 2, referrerAccountID) }
            if !redeemerAccountID.isEmpty { writer.writeString(field: 3, redeemerAccountID) }
            if let usedAt { writer.writeMessage(field: 4, usedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: code = try reader.readString()
            case 2: referrerAccountID = try reader.readString()
            case 3: redeemerAccountID = try reader.readString()
            case 4: usedAt = try reader.mergeMessage(usedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ApprovalMethod.
    public struct ApprovalMethod: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = ApprovalMethod(rawValue: 0)
        public static let committee = ApprovalMethod(rawValue: 1)
        public static let referral = ApprovalMethod(rawValue: 2)
    }

    /// rendezvous.identity.v1.MembershipApproved: account_id = 1, method = 2,
    /// approved_by_account_id = 3, approved_at = 4.
    public struct MembershipApproved: ProtoMessage {
        public var accountID = ""
        public var method = ApprovalMethod.unspecified
        public var approvedByAccountID = ""
        public var approvedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if method.rawValue != 0 { writer.writeEnum(field: 2, method) }
            if !approvedByAccountID.isEmpty { writer.writeString(field: 3, approvedByAccountID) }
            if let approvedAt { writer.writeMessage(field: 4, approvedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: method = try reader.readEnum(as: ApprovalMethod.self)
            case 3: approvedByAccountID = try reader.readString()
            case 4: approvedAt = try reader.mergeMessage(approvedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.MembershipRejected: account_id = 1, reason = 2,
    /// rejected_by_account_id = 3, rejected_at = 4.
    public struct MembershipRejected: ProtoMessage {
        public var accountID = ""
        public var reason = ""
        public var rejectedByAccountID = ""
        public var rejectedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !reason.isEmpty { writer.writeString(field: 2, reason) }
            if !rejectedByAccountID.isEmpty { writer.writeString(field: 3, rejectedByAccountID) }
            if let rejectedAt { writer.writeMessage(field: 4, rejectedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: reason = try reader.readString()
            case 3: rejectedByAccountID = try reader.readString()
            case 4: rejectedAt = try reader.mergeMessage(rejectedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.TierChanged: account_id = 1, tier = 2, previous_tier = 3,
    /// expires_at = 4.
    public struct TierChanged: ProtoMessage {
        public var accountID = ""
        public var tier = ""
        public var previousTier = ""
        public var expiresAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !tier.isEmpty { writer.writeString(field: 2, tier) }
            if !previousTier.isEmpty { writer.writeString(field: 3, previousTier) }
            if let expiresAt { writer.writeMessage(field: 4, expiresAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: tier = try reader.readString()
            case 3: previousTier = try reader.readString()
            case 4: expiresAt = try reader.mergeMessage(expiresAt)
            default: try reader.skipField()
            }
        }
    }
}
