public import Wire

extension Membership {
    /// rendezvous.identity.v1.CreateReferralCodeRequest: expires_at = 1.
    public struct CreateReferralCodeRequest: ProtoMessage {
        public var expiresAt: Timestamp?

        public init() {}

        public init(expiresAt: Timestamp?) { self.expiresAt = expiresAt }

        public func encode(to writer: inout ProtoWriter) {
            if let expiresAt { writer.writeMessage(field: 1, expiresAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: expiresAt = try reader.mergeMessage(expiresAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ReferralCode: code = 1, created_at = 2, expires_at = 3, used = 4,
    /// used_by_account_id = 5, used_by_username = 6, used_at = 7.
    public struct ReferralCode: ProtoMessage {
        public var code = ""
        public var createdAt: Timestamp?
        public var expiresAt: Timestamp?
        public var used = false
        public var usedByAccountID = ""
        public var usedByUsername = ""
        public var usedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !code.isEmpty { writer.writeString(field: 1, code) }
            if let createdAt { writer.writeMessage(field: 2, createdAt) }
            if let expiresAt { writer.writeMessage(field: 3, expiresAt) }
            if used { writer.writeBool(field: 4, used) }
            if !usedByAccountID.isEmpty { writer.writeString(field: 5, usedByAccountID) }
            if !usedByUsername.isEmpty { writer.writeString(field: 6, usedByUsername) }
            if let usedAt { writer.writeMessage(field: 7, usedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: code = try reader.readString()
            case 2: createdAt = try reader.mergeMessage(createdAt)
            case 3: expiresAt = try reader.mergeMessage(expiresAt)
            case 4: used = try reader.readBool()
            case 5: usedByAccountID = try reader.readString()
            case 6: usedByUsername = try reader.readString()
            case 7: usedAt = try reader.mergeMessage(usedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListMyReferralCodesRequest: no fields.
    public struct ListMyReferralCodesRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.ListMyReferralCodesResponse: codes = 1, allowance_per_month = 2,
    /// remaining_this_month = 3, allowance_resets_at = 4.
    public struct ListMyReferralCodesResponse: ProtoMessage {
        public var codes: [ReferralCode] = []
        public var allowancePerMonth: Int32 = 0
        public var remainingThisMonth: Int32 = 0
        public var allowanceResetsAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            for code in codes { writer.writeMessage(field: 1, code) }
            if allowancePerMonth != 0 { writer.writeInt32(field: 2, allowancePerMonth) }
            if remainingThisMonth != 0 { writer.writeInt32(field: 3, remainingThisMonth) }
            if let allowanceResetsAt { writer.writeMessage(field: 4, allowanceResetsAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: codes.append(try reader.readMessage(ReferralCode.self))
            case 2: allowancePerMonth = try reader.readInt32()
            case 3: remainingThisMonth = try reader.readInt32()
            case 4: allowanceResetsAt = try reader.mergeMessage(allowanceResetsAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.RedeemReferralCodeRequest: code = 1.
    public struct RedeemReferralCodeRequest: ProtoMessage {
        public var code = ""

        public init() {}

        public init(code: String) { self.code = code }

        public func encode(to writer: inout ProtoWriter) {
            if !code.isEmpty { writer.writeString(field: 1, code) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: code = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.RedeemReferralCodeResponse: membership_status = 1.
    public struct RedeemReferralCodeResponse: ProtoMessage {
        public var membershipStatus = ""

        public init() {}

        public init(membershipStatus: String) { self.membershipStatus = membershipStatus }

        public func encode(to writer: inout ProtoWriter) {
            if !membershipStatus.isEmpty { writer.writeString(field: 1, membershipStatus) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: membershipStatus = try reader.readString()
            default: try reader.skipField()
            }
        }
    }
}
