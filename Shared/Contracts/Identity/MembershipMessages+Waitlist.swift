public import Wire

extension Membership {
    /// rendezvous.identity.v1.GetMyWaitlistPositionRequest: no fields.
    public struct GetMyWaitlistPositionRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.WaitlistPosition: position = 1, joined_at = 2.
    public struct WaitlistPosition: ProtoMessage {
        public var position: Int32 = 0
        public var joinedAt: Timestamp?

        public init() {}

        public init(position: Int32, joinedAt: Timestamp?) {
            self.position = position
            self.joinedAt = joinedAt
        }

        public func encode(to writer: inout ProtoWriter) {
            if position != 0 { writer.writeInt32(field: 1, position) }
            if let joinedAt { writer.writeMessage(field: 2, joinedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: position = try reader.readInt32()
            case 2: joinedAt = try reader.mergeMessage(joinedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListWaitlistRequest: page_size = 1, page_token = 2.
    public struct ListWaitlistRequest: ProtoMessage {
        public var pageSize: Int32 = 0
        public var pageToken = ""

        public init() {}

        public init(pageSize: Int32, pageToken: String = "") {
            self.pageSize = pageSize
            self.pageToken = pageToken
        }

        public func encode(to writer: inout ProtoWriter) {
            if pageSize != 0 { writer.writeInt32(field: 1, pageSize) }
            if !pageToken.isEmpty { writer.writeString(field: 2, pageToken) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: pageSize = try reader.readInt32()
            case 2: pageToken = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.WaitlistMember: account_id = 1, username = 2, email = 3,
    /// position = 4, joined_at = 5.
    public struct WaitlistMember: ProtoMessage {
        public var accountID = ""
        public var username = ""
        public var email = ""
        public var position: Int32 = 0
        public var joinedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !username.isEmpty { writer.writeString(field: 2, username) }
            if !email.isEmpty { writer.writeString(field: 3, email) }
            if position != 0 { writer.writeInt32(field: 4, position) }
            if let joinedAt { writer.writeMessage(field: 5, joinedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: username = try reader.readString()
            case 3: email = try reader.readString()
            case 4: position = try reader.readInt32()
            case 5: joinedAt = try reader.mergeMessage(joinedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListWaitlistResponse: members = 1, next_page_token = 2.
    public struct ListWaitlistResponse: ProtoMessage {
        public var members: [WaitlistMember] = []
        public var nextPageToken = ""

        public init() {}

        public init(members: [WaitlistMember], nextPageToken: String) {
            self.members = members
            self.nextPageToken = nextPageToken
        }

        public func encode(to writer: inout ProtoWriter) {
            for member in members { writer.writeMessage(field: 1, member) }
            if !nextPageToken.isEmpty { writer.writeString(field: 2, nextPageToken) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: members.append(try reader.readMessage(WaitlistMember.self))
            case 2: nextPageToken = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ApproveMemberRequest: account_id = 1.
    public struct ApproveMemberRequest: ProtoMessage {
        public var accountID = ""

        public init() {}

        public init(accountID: String) { self.accountID = accountID }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.RejectMemberRequest: account_id = 1, reason = 2.
    public struct RejectMemberRequest: ProtoMessage {
        public var accountID = ""
        public var reason = ""

        public init() {}

        public init(accountID: String, reason: String) {
            self.accountID = accountID
            self.reason = reason
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !reason.isEmpty { writer.writeString(field: 2, reason) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: reason = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.MembershipDecision: account_id = 1, membership_status = 2,
    /// decided_at = 3.
    public struct MembershipDecision: ProtoMessage {
        public var accountID = ""
        public var membershipStatus = ""
        public var decidedAt: Timestamp?

        public init() {}

        public init(accountID: String, membershipStatus: String, decidedAt: Timestamp?) {
            self.accountID = accountID
            self.membershipStatus = membershipStatus
            self.decidedAt = decidedAt
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !membershipStatus.isEmpty { writer.writeString(field: 2, membershipStatus) }
            if let decidedAt { writer.writeMessage(field: 3, decidedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: membershipStatus = try reader.readString()
            case 3: decidedAt = try reader.mergeMessage(decidedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.JoinWaitlistRequest: app = 1, email = 2, referral_code = 3.
    public struct JoinWaitlistRequest: ProtoMessage {
        public var app = ""
        public var email = ""
        public var referralCode = ""

        public init() {}

        public init(app: String, email: String, referralCode: String = "") {
            self.app = app
            self.email = email
            self.referralCode = referralCode
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if !email.isEmpty { writer.writeString(field: 2, email) }
            if !referralCode.isEmpty { writer.writeString(field: 3, referralCode) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: email = try reader.readString()
            case 3: referralCode = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.GetWaitlistPositionRequest: app = 1, email = 2,
    /// referral_code = 3.
    public struct GetWaitlistPositionRequest: ProtoMessage {
        public var app = ""
        public var email = ""
        public var referralCode = ""

        public init() {}

        public init(app: String, email: String, referralCode: String) {
            self.app = app
            self.email = email
            self.referralCode = referralCode
        }

        public func encode(to writer: inout ProtoWriter) {
            if !app.isEmpty { writer.writeString(field: 1, app) }
            if !email.isEmpty { writer.writeString(field: 2, email) }
            if !referralCode.isEmpty { writer.writeString(field: 3, referralCode) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: app = try reader.readString()
            case 2: email = try reader.readString()
            case 3: referralCode = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.WaitlistEntry: referral_code = 1, position = 2, referrals = 3,
    /// joined_at = 4.
    public struct WaitlistEntry: ProtoMessage {
        public var referralCode = ""
        public var position: Int32 = 0
        public var referrals: Int32 = 0
        public var joinedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !referralCode.isEmpty { writer.writeString(field: 1, referralCode) }
            if position != 0 { writer.writeInt32(field: 2, position) }
            if referrals != 0 { writer.writeInt32(field: 3, referrals) }
            if let joinedAt { writer.writeMessage(field: 4, joinedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: referralCode = try reader.readString()
            case 2: position = try reader.readInt32()
            case 3: referrals = try reader.readInt32()
            case 4: joinedAt = try reader.mergeMessage(joinedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.GetWaitlistCountRequest: no fields.
    public struct GetWaitlistCountRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.WaitlistCount: count = 1.
    public struct WaitlistCount: ProtoMessage {
        public var count: Int64 = 0

        public init() {}

        public init(count: Int64) { self.count = count }

        public func encode(to writer: inout ProtoWriter) {
            if count != 0 { writer.writeInt64(field: 1, count) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: count = try reader.readInt64()
            default: try reader.skipField()
            }
        }
    }
}
