public import Wire

/// Messages of `rendezvous.identity.v1.Profiles` (proto-docs/rendezvous/identity/v1/profiles.proto).
public enum Profiles {
    /// The Profiles service.
    public static let serviceName = "rendezvous.identity.v1.Profiles"

    /// rendezvous.identity.v1.CalendarDate: year = 1, month = 2, day = 3.
    public struct CalendarDate: ProtoMessage, Hashable {
        public var year: Int32 = 0
        public var month: Int32 = 0
        public var day: Int32 = 0

        public init() {}

        public init(year: Int32, month: Int32, day: Int32) {
            self.year = year
            self.month = month
            self.day = day
        }

        public func encode(to writer: inout ProtoWriter) {
            if year != 0 { writer.writeInt32(field: 1, year) }
            if month != 0 { writer.writeInt32(field: 2, month) }
            if day != 0 { writer.writeInt32(field: 3, day) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: year = try reader.readInt32()
            case 2: month = try reader.readInt32()
            case 3: day = try reader.readInt32()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.GeoPoint: latitude = 1, longitude = 2 (WGS 84 degrees).
    public struct GeoPoint: ProtoMessage, Hashable {
        public var latitude: Double = 0
        public var longitude: Double = 0

        public init() {}

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }

        public func encode(to writer: inout ProtoWriter) {
            if latitude.bitPattern != 0 { writer.writeDouble(field: 1, latitude) }
            if longitude.bitPattern != 0 { writer.writeDouble(field: 2, longitude) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: latitude = try reader.readDouble()
            case 2: longitude = try reader.readDouble()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.Gender.
    public struct Gender: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Gender(rawValue: 0)
        public static let female = Gender(rawValue: 1)
        public static let male = Gender(rawValue: 2)
        public static let nonBinary = Gender(rawValue: 3)
    }

    /// rendezvous.identity.v1.Profile: account_id = 1, app = 2, username = 3, display_name = 4,
    /// public_name = 5, show_real_name = 6, first_name = 7, last_name = 8, birth_date = 9,
    /// age = 10, gender = 11, bio = 12, title = 13, tags = 14, interests = 15,
    /// preferred_cuisines = 16, neighborhood = 17, location = 18, distance_meters = 19,
    /// active = 20, onboarding_complete = 21, verified = 22, photo_ids = 23, role = 24,
    /// last_active_at = 25, created_at = 26, updated_at = 27.
    public struct Profile: ProtoMessage {
        public var accountID = ""
        public var app = ""
        public var username = ""
        public var displayName = ""
        public var publicName = ""
        public var showRealName = false
        public var firstName = ""
        public var lastName = ""
        public var birthDate: CalendarDate?
        public var age: Int32 = 0
        public var gender = Gender.unspecified
        public var bio = ""
        public var title = ""
        public var tags: [String] = []
        public var interests: [String] = []
        public var preferredCuisines: [String] = []
        public var neighborhood = ""
        public var location: GeoPoint?
        public var distanceMeters: Double = 0
        public var active = false
        public var onboardingComplete = false
        public var verified = false
        public var photoIDs: [String] = []
        public var role = ""
        public var lastActiveAt: Timestamp?
        public var createdAt: Timestamp?
        public var updatedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !app.isEmpty { writer.writeString(field: 2, app) }
            if !username.isEmpty { writer.writeString(field: 3, username) }
            if !displayName.isEmpty { writer.writeString(field: 4, displayName) }
            if !publicName.isEmpty { writer.writeString(field: 5, publicName) }
            if showRealName { writer.writeBool(field: 6, showRealName) }
            if !firstName.isEmpty { writer.writeString(field: 7, firstName) }
            if !lastName.isEmpty { writer.writeString(field: 8, lastName) }
            if let birthDate { writer.writeMessage(field: 9, birthDate) }
            if age != 0 { writer.writeInt32(field: 10, age) }
            if gender != .unspecified { writer.writeEnum(field: 11, gender) }
            if !bio.isEmpty { writer.writeString(field: 12, bio) }
            if !title.isEmpty { writer.writeString(field: 13, title) }
            for tag in tags { writer.writeString(field: 14, tag) }
            for interest in interests { writer.writeString(field: 15, interest) }
            for cuisine in preferredCuisines { writer.writeString(field: 16, cuisine) }
            if !neighborhood.isEmpty { writer.writeString(field: 17, neighborhood) }
            if let location { writer.writeMessage(field: 18, location) }
            if distanceMeters.bitPattern != 0 { writer.writeDouble(field: 19, distanceMeters) }
            if active { writer.writeBool(field: 20, active) }
            if onboardingComplete { writer.writeBool(field: 21, onboardingComplete) }
            if verified { writer.writeBool(field: 22, verified) }
            for photoID in photoIDs { writer.writeString(field: 23, photoID) }
            if !role.isEmpty { writer.writeString(field: 24, role) }
            if let lastActiveAt { writer.writeMessage(field: 25, lastActiveAt) }
            if let createdAt { writer.writeMessage(field: 26, createdAt) }
            if let updatedAt { writer.writeMessage(field: 27, updatedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: app = try reader.readString()
            case 3: username = try reader.readString()
            case 4: displayName = try reader.readString()
            case 5: publicName = try reader.readString()
            case 6: showRealName = try reader.readBool()
            case 7: firstName = try reader.readString()
            case 8: lastName = try reader.readString()
            case 9: birthDate = try reader.mergeMessage(birthDate)
            case 10: age = try reader.readInt32()
            case 11: gender = try reader.readEnum(as: Gender.self)
            case 12: bio = try reader.readString()
            case 13: title = try reader.readString()
            case 14: tags.append(try reader.readString())
            case 15: interests.append(try reader.readString())
            case 16: preferredCuisines.append(try reader.readString())
            case 17: neighborhood = try reader.readString()
            case 18: location = try reader.mergeMessage(location)
            case 19: distanceMeters = try reader.readDouble()
            case 20: active = try reader.readBool()
            case 21: onboardingComplete = try reader.readBool()
            case 22: verified = try reader.readBool()
            case 23: photoIDs.append(try reader.readString())
            case 24: role = try reader.readString()
            case 25: lastActiveAt = try reader.mergeMessage(lastActiveAt)
            case 26: createdAt = try reader.mergeMessage(createdAt)
            case 27: updatedAt = try reader.mergeMessage(updatedAt)
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ProfileFields: username = 1, display_name = 2,
    /// show_real_name = 3, first_name = 4, last_name = 5, birth_date = 6, gender = 7, bio = 8,
    /// title = 9, tags = 10, interests = 11, preferred_cuisines = 12, neighborhood = 13,
    /// location = 14, active = 15, onboarding_complete = 16, photo_ids = 17.
    public struct ProfileFields: ProtoMessage {
        public var username = ""
        public var displayName = ""
        public var showRealName = false
        public var firstName = ""
        public var lastName = ""
        public var birthDate: CalendarDate?
        public var gender = Gender.unspecified
        public var bio = ""
        public var title = ""
        public var tags: [String] = []
        public var interests: [String] = []
        public var preferredCuisines: [String] = []
        public var neighborhood = ""
        public var location: GeoPoint?
        public var active = false
        public var onboardingComplete = false
        public var photoIDs: [String] = []

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !username.isEmpty { writer.writeString(field: 1, username) }
            if !displayName.isEmpty { writer.writeString(field: 2, displayName) }
            if showRealName { writer.writeBool(field: 3, showRealName) }
            if !firstName.isEmpty { writer.writeString(field: 4, firstName) }
            if !lastName.isEmpty { writer.writeString(field: 5, lastName) }
            if let birthDate { writer.writeMessage(field: 6, birthDate) }
            if gender != .unspecified { writer.writeEnum(field: 7, gender) }
            if !bio.isEmpty { writer.writeString(field: 8, bio) }
            if !title.isEmpty { writer.writeString(field: 9, title) }
            for tag in tags { writer.writeString(field: 10, tag) }
            for interest in interests { writer.writeString(field: 11, interest) }
            for cuisine in preferredCuisines { writer.writeString(field: 12, cuisine) }
            if !neighborhood.isEmpty { writer.writeString(field: 13, neighborhood) }
            if let location { writer.writeMessage(field: 14, location) }
            if active { writer.writeBool(field: 15, active) }
            if onboardingComplete { writer.writeBool(field: 16, onboardingComplete) }
            for photoID in photoIDs { writer.writeString(field: 17, photoID) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: username = try reader.readString()
            case 2: displayName = try reader.readString()
            case 3: showRealName = try reader.readBool()
            case 4: firstName = try reader.readString()
            case 5: lastName = try reader.readString()
            case 6: birthDate = try reader.mergeMessage(birthDate)
            case 7: gender = try reader.readEnum(as: Gender.self)
            case 8: bio = try reader.readString()
            case 9: title = try reader.readString()
            case 10: tags.append(try reader.readString())
            case 11: interests.append(try reader.readString())
            case 12: preferredCuisines.append(try reader.readString())
            case 13: neighborhood = try reader.readString()
            case 14: location = try reader.mergeMessage(location)
            case 15: active = try reader.readBool()
            case 16: onboardingComplete = try reader.readBool()
            case 17: photoIDs.append(try reader.readString())
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.GetMyProfileRequest: no fields.
    public struct GetMyProfileRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.UpdateProfileRequest: fields = 1, update_mask = 2.
    public struct UpdateProfileRequest: ProtoMessage {
        public var fields: ProfileFields?
        public var updateMask: [String] = []

        public init() {}

        public init(fields: ProfileFields, updateMask: [String]) {
            self.fields = fields
            self.updateMask = updateMask
        }

        public func encode(to writer: inout ProtoWriter) {
            if let fields { writer.writeMessage(field: 1, fields) }
            for path in updateMask { writer.writeString(field: 2, path) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: fields = try reader.mergeMessage(fields)
            case 2: updateMask.append(try reader.readString())
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.GetProfileRequest: account_id = 1.
    public struct GetProfileRequest: ProtoMessage {
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

    /// rendezvous.identity.v1.GetProfileByUsernameRequest: username = 1.
    public struct GetProfileByUsernameRequest: ProtoMessage {
        public var username = ""

        public init() {}

        public init(username: String) { self.username = username }

        public func encode(to writer: inout ProtoWriter) {
            if !username.isEmpty { writer.writeString(field: 1, username) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: username = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListProfilesRequest: page_size = 1, page_token = 2,
    /// active_only = 3.
    public struct ListProfilesRequest: ProtoMessage {
        public var pageSize: Int32 = 0
        public var pageToken = ""
        public var activeOnly = false

        public init() {}

        public init(pageSize: Int32 = 0, pageToken: String = "", activeOnly: Bool = false) {
            self.pageSize = pageSize
            self.pageToken = pageToken
            self.activeOnly = activeOnly
        }

        public func encode(to writer: inout ProtoWriter) {
            if pageSize != 0 { writer.writeInt32(field: 1, pageSize) }
            if !pageToken.isEmpty { writer.writeString(field: 2, pageToken) }
            if activeOnly { writer.writeBool(field: 3, activeOnly) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: pageSize = try reader.readInt32()
            case 2: pageToken = try reader.readString()
            case 3: activeOnly = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.ListProfilesResponse: profiles = 1, next_page_token = 2.
    public struct ListProfilesResponse: ProtoMessage {
        public var profiles: [Profile] = []
        public var nextPageToken = ""

        public init() {}

        public init(profiles: [Profile], nextPageToken: String = "") {
            self.profiles = profiles
            self.nextPageToken = nextPageToken
        }

        public func encode(to writer: inout ProtoWriter) {
            for profile in profiles { writer.writeMessage(field: 1, profile) }
            if !nextPageToken.isEmpty { writer.writeString(field: 2, nextPageToken) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: profiles.append(try reader.readMessage(Profile.self))
            case 2: nextPageToken = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.SetVerifiedRequest: account_id = 1, verified = 2.
    public struct SetVerifiedRequest: ProtoMessage {
        public var accountID = ""
        public var verified = false

        public init() {}

        public init(accountID: String, verified: Bool) {
            self.accountID = accountID
            self.verified = verified
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if verified { writer.writeBool(field: 2, verified) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: verified = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.BecomeApplicantRequest: no fields.
    public struct BecomeApplicantRequest: ProtoMessage {
        public init() {}

        public func encode(to writer: inout ProtoWriter) {}

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// rendezvous.identity.v1.SetRoleRequest: account_id = 1, role = 2.
    public struct SetRoleRequest: ProtoMessage {
        public var accountID = ""
        public var role = ""

        public init() {}

        public init(accountID: String, role: String) {
            self.accountID = accountID
            self.role = role
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !role.isEmpty { writer.writeString(field: 2, role) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: role = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.RoleAssignment: account_id = 1, role = 2, previous_role = 3,
    /// changed = 4.
    public struct RoleAssignment: ProtoMessage {
        public var accountID = ""
        public var role = ""
        public var previousRole = ""
        public var changed = false

        public init() {}

        public init(accountID: String, role: String, previousRole: String, changed: Bool) {
            self.accountID = accountID
            self.role = role
            self.previousRole = previousRole
            self.changed = changed
        }

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !role.isEmpty { writer.writeString(field: 2, role) }
            if !previousRole.isEmpty { writer.writeString(field: 3, previousRole) }
            if changed { writer.writeBool(field: 4, changed) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: role = try reader.readString()
            case 3: previousRole = try reader.readString()
            case 4: changed = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.identity.v1.RoleChanged (event payload): account_id = 1, app = 2,
    /// previous_role = 3, role = 4, changed_by = 5, changed_at = 6.
    public struct RoleChanged: ProtoMessage {
        public var accountID = ""
        public var app = ""
        public var previousRole = ""
        public var role = ""
        public var changedBy = ""
        public var changedAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if !accountID.isEmpty { writer.writeString(field: 1, accountID) }
            if !app.isEmpty { writer.writeString(field: 2, app) }
            if !previousRole.isEmpty { writer.writeString(field: 3, previousRole) }
            if !role.isEmpty { writer.writeString(field: 4, role) }
            if !changedBy.isEmpty { writer.writeString(field: 5, changedBy) }
            if let changedAt { writer.writeMessage(field: 6, changedAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: accountID = try reader.readString()
            case 2: app = try reader.readString()
            case 3: previousRole = try reader.readString()
            case 4: role = try reader.readString()
            case 5: changedBy = try reader.readString()
            case 6: changedAt = try reader.mergeMessage(changedAt)
            default: try reader.skipField()
            }
        }
    }
}
