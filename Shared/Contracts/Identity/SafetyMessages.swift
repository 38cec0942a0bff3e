public import Wire

/// Messages of `rendezvous.identity.v1.Safety` (proto-docs/rendezvous/identity/v1/safety.proto).
public enum Safety {
    /// The Safety service.
    public static let serviceName = "rendezvous.identity.v1.Safety"

    /// rendezvous.identity.v1.BlockRequest: account_id = 1.
    public struct BlockRequest: ProtoMessage {
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

    /// rendezvous.identity.v1.BlockedUser: account_id = 1, username = 2, blocked_at = 3.
    public struct BlockedUser: ProtoMessage {
        public var accountID = ""
        public var username = ""
        public var blockedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !username.isEmpty { writer.writeString(field: 2, username) }
            if let blockedAt { writer.writeMessage(field: 3, blockedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: username = try reader.readString()
            case 3: blockedAt = try reader.mergeMessage(blockedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.UnblockRequest: account_id = 1.
    public struct UnblockRequest: ProtoMessage {
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

    /// rendezvous.identity.v1.UnblockResponse: unblocked = 1.
    public struct UnblockResponse: ProtoMessage {
        public var unblocked = false

        public init() {}

        public init(unblocked: Bool) { self.unblocked = unblocked }

        public func encode(to writer: inout ProtoWriter) {
            if unblocked { writer.writeBool(field: 1, unblocked) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: unblocked = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListBlocksRequest: page_size = 1, page_token = 2.
    public struct ListBlocksRequest: ProtoMessage {
        public var pageSize: Int32 = 0
        public var pageToken = ""

        public init() {}

        public init(pageSize: Int32 = 0, pageToken: String = "") {
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

    /// rendezvous.identity.v1.ListBlocksResponse: blocks = 1, next_page_token = 2.
    public struct ListBlocksResponse: ProtoMessage {
        public var blocks: [BlockedUser] = []
        public var nextPageToken = ""

        public init() {}

        public init(blocks: [BlockedUser], nextPageToken: String = "") {
            self.blocks = blocks
            self.nextPageToken = nextPageToken
        }

        public func encode(to writer: inout ProtoWriter) {
            for block in blocks { writer.writeMessage(field: 1, block) }
            if !nextPageToken.isEmpty { writer.writeString(field: 2, nextPageToken) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: blocks.append(try reader.readMessage(BlockedUser.self))
            case 2: nextPageToken = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ReportReason.
    public struct ReportReason: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = ReportReason(rawValue: 0)
        public static let spam = ReportReason(rawValue: 1)
        public static let harassment = ReportReason(rawValue: 2)
        public static let inappropriate = ReportReason(rawValue: 3)
        public static let fake = ReportReason(rawValue: 4)
        public static let underage = ReportReason(rawValue: 5)
        public static let other = ReportReason(rawValue: 6)
    }

    /// rendezvous.identity.v1.ReportStatus.
    public struct ReportStatus: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = ReportStatus(rawValue: 0)
        public static let pending = ReportStatus(rawValue: 1)
        public static let reviewed = ReportStatus(rawValue: 2)
        public static let resolved = ReportStatus(rawValue: 3)
    }

    /// rendezvous.identity.v1.ReportRequest: account_id = 1, reason = 2, details = 3,
    /// also_block = 4.
    public struct ReportRequest: ProtoMessage {
        public var accountID = ""
        public var reason = ReportReason.unspecified
        public var details = ""
        public var alsoBlock = false

        public init() {}

        public init(accountID: String, reason: ReportReason, details: String = "", alsoBlock: Bool = false) {
            self.accountID = accountID
            self.reason = reason
            self.details = details
            self.alsoBlock = alsoBlock
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if reason != .unspecified { writer.writeEnum(field: 2, reason) }
            if !details.isEmpty { writer.writeString(field: 3, details) }
            if alsoBlock { writer.writeBool(field: 4, alsoBlock) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: reason = try reader.readEnum(as: ReportReason.self)
            case 3: details = try reader.readString()
            case 4: alsoBlock = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.UserReport: id = 1, app = 2, reporter_id = 3, reported_id = 4,
    /// reason = 5, details = 6, status = 7, created_at = 8, reviewer_id = 9,
    /// reviewed_at = 10, review_note = 11, resolver_id = 12, resolved_at = 13,
    /// resolution_note = 14.
    public struct UserReport: ProtoMessage {
        public var id = ""
        public var app = ""
        public var reporterID = ""
        public var reportedID = ""
        public var reason = ReportReason.unspecified
        public var details = ""
        public var status = ReportStatus.unspecified
        public var createdAt: Timestamp?
        public var reviewerID = ""
        public var reviewedAt: Timestamp?
        public var reviewNote = ""
        public var resolverID = ""
        public var resolvedAt: Timestamp?
        public var resolutionNote = ""

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !id.isEmpty { writer.writeString(field: 1, id) }
            if !app.isEmpty { writer.writeString(field: 2, app) }
            if !reporterID.isEmpty { writer.writeString(field: 3, reporterID) }
            if !reportedID.isEmpty { writer.writeString(field: 4, reportedID) }
            if reason != .unspecified { writer.writeEnum(field: 5, reason) }
            if !details.isEmpty { writer.writeString(field: 6, details) }
            if status != .unspecified { writer.writeEnum(field: 7, status) }
            if let createdAt { writer.writeMessage(field: 8, createdAt) }
            if !reviewerID.isEmpty { writer.writeString(field: 9, reviewerID) }
            if let reviewedAt { writer.writeMessage(field: 10, reviewedAt) }
            if !reviewNote.isEmpty { writer.writeString(field: 11, reviewNote) }
            if !resolverID.isEmpty { writer.writeString(field: 12, resolverID) }
            if let resolvedAt { writer.writeMessage(field: 13, resolvedAt) }
            if !resolutionNote.isEmpty { writer.writeString(field: 14, resolutionNote) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: id = try reader.readString()
            case 2: app = try reader.readString()
            case 3: reporterID = try reader.readString()
            case 4: reportedID = try reader.readString()
            case 5: reason = try reader.readEnum(as: ReportReason.self)
            case 6: details = try reader.readString()
            case 7: status = try reader.readEnum(as: ReportStatus.self)
            case 8: createdAt = try reader.mergeMessage(createdAt)
            case 9: reviewerID = try reader.readString()
            case 10: reviewedAt = try reader.mergeMessage(reviewedAt)
            case 11: reviewNote = try reader.readString()
            case 12: resolverID = try reader.readString()
            case 13: resolvedAt = try reader.mergeMessage(resolvedAt)
            case 14: resolutionNote = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListReportsRequest: status = 1, reported_id = 2, page_size = 3,
    /// page_token = 4.
    public struct ListReportsRequest: ProtoMessage {
        public var status = ReportStatus.unspecified
        public var reportedID = ""
        public var pageSize: Int32 = 0
        public var pageToken = ""

        public init() {}

        public init(status: ReportStatus = .unspecified, reportedID: String = "", pageSize: Int32 = 0,
                    pageToken: String = "") {
            self.status = status
            self.reportedID = reportedID
            self.pageSize = pageSize
            self.pageToken = pageToken
        }

        public func encode(to writer: inout ProtoWriter) {
            if status != .unspecified { writer.writeEnum(field: 1, status) }
            if !reportedID.isEmpty { writer.writeString(field: 2, reportedID) }
            if pageSize != 0 { writer.writeInt32(field: 3, pageSize) }
            if !pageToken.isEmpty { writer.writeString(field: 4, pageToken) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: status = try reader.readEnum(as: ReportStatus.self)
            case 2: reportedID = try reader.readString()
            case 3: pageSize = try reader.readInt32()
            case 4: pageToken = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListReportsResponse: reports = 1, next_page_token = 2.
    public struct ListReportsResponse: ProtoMessage {
        public var reports: [UserReport] = []
        public var nextPageToken = ""

        public init() {}

        public init(reports: [UserReport], nextPageToken: String = "") {
            self.reports = reports
            self.nextPageToken = nextPageToken
        }

        public func encode(to writer: inout ProtoWriter) {
            for report in reports { writer.writeMessage(field: 1, report) }
            if !nextPageToken.isEmpty { writer.writeString(field: 2, nextPageToken) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: reports.append(try reader.readMessage(UserReport.self))
            case 2: nextPageToken = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ReviewReportRequest: report_id = 1, note = 2.
    public struct ReviewReportRequest: ProtoMessage {
        public var reportID = ""
        public var note = ""

        public init() {}

        public init(reportID: String, note: String = "") {
            self.reportID = reportID
            self.note = note
        }

        public func encode(to writer: inout ProtoWriter) {
            if !reportID.isEmpty { writer.writeString(field: 1, reportID) }
            if !note.isEmpty { writer.writeString(field: 2, note) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: reportID = try reader.readString()
            case 2: note = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ResolveReportRequest: report_id = 1, note = 2.
    public struct ResolveReportRequest: ProtoMessage {
        public var reportID = ""
        public var note = ""

        public init() {}

        public init(reportID: String, note: String = "") {
            self.reportID = reportID
            self.note = note
        }

        public func encode(to writer: inout ProtoWriter) {
            if !reportID.isEmpty { writer.writeString(field: 1, reportID) }
            if !note.isEmpty { writer.writeString(field: 2, note) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: reportID = try reader.readString()
            case 2: note = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.UserBlocked (event payload): blocker_id = 1, blocked_id = 2,
    /// app = 3, blocked_at = 4.
    public struct UserBlocked: ProtoMessage {
        public var blockerID = ""
        public var blockedID = ""
        public var app = ""
        public var blockedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !blockerID.isEmpty { writer.writeString(field: 1, blockerID) }
            if !blockedID.isEmpty { writer.writeString(field: 2, blockedID) }
            if !app.isEmpty { writer.writeString(field: 3, app) }
            if let blockedAt { writer.writeMessage(field: 4, blockedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: blockerID = try reader.readString()
            case 2: blockedID = try reader.readString()
            case 3: app = try reader.readString()
            case 4: blockedAt = try reader.mergeMessage(blockedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.UserUnblocked (event payload): blocker_id = 1, blocked_id = 2,
    /// app = 3, unblocked_at = 4.
    public struct UserUnblocked: ProtoMessage {
        public var blockerID = ""
        public var blockedID = ""
        public var app = ""
        public var unblockedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !blockerID.isEmpty { writer.writeString(field: 1, blockerID) }
            if !blockedID.isEmpty { writer.writeString(field: 2, blockedID) }
            if !app.isEmpty { writer.writeString(field: 3, app) }
            if let unblockedAt { writer.writeMessage(field: 4, unblockedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: blockerID = try reader.readString()
            case 2: blockedID = try reader.readString()
            case 3: app = try reader.readString()
            case 4: unblockedAt = try reader.mergeMessage(unblockedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.UserReported (event payload): report_id = 1, app = 2,
    /// reporter_id = 3, reported_id = 4, reason = 5, reported_at = 6.
    public struct UserReported: ProtoMessage {
        public var reportID = ""
        public var app = ""
        public var reporterID = ""
        public var reportedID = ""
        public var reason = ReportReason.unspecified
        public var reportedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !reportID.isEmpty { writer.writeString(field: 1, reportID) }
            if !app.isEmpty { writer.writeString(field: 2, app) }
            if !reporterID.isEmpty { writer.writeString(field: 3, reporterID) }
            if !reportedID.isEmpty { writer.writeString(field: 4, reportedID) }
            if reason != .unspecified { writer.writeEnum(field: 5, reason) }
            if let reportedAt { writer.writeMessage(field: 6, reportedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: reportID = try reader.readString()
            case 2: app = try reader.readString()
            case 3: reporterID = try reader.readString()
            case 4: reportedID = try reader.readString()
            case 5: reason = try reader.readEnum(as: ReportReason.self)
            case 6: reportedAt = try reader.mergeMessage(reportedAt)
            default: try reader.skipField()
            }
        }
    }
}
