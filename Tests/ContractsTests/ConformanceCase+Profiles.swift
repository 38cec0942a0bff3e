import Contracts
import Foundation
import Testing

/// Values of rendezvous.identity.v1.Profiles (proto-docs/rendezvous/identity/v1/profiles.proto).
extension ConformanceCase {
    static let profiles: [ConformanceCase] = {
        let package = "rendezvous.identity.v1."
        let accountID = "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b"
        let photo = "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"

        let birthDate = Profiles.CalendarDate(year: 1994, month: 2, day: 28)
        let birthDateJSON = #"{"year": 1994, "month": 2, "day": 28}"#
        let miami = Profiles.GeoPoint(latitude: 25.7617, longitude: -80.1918)
        let miamiJSON = #"{"latitude": 25.7617, "longitude": -80.1918}"#

        var profile = Profiles.Profile()
        profile.accountID = accountID
        profile.app = "firstdate"
        profile.username = "maya_r"
        profile.displayName = "Maya"
        profile.publicName = "Maya Reyes"
        profile.showRealName = true
        profile.firstName = "Maya"
        profile.lastName = "Reyes"
        profile.birthDate = birthDate
        profile.age = 31
        profile.gender = .female
        profile.bio = unicodeText
        profile.title = "Art Director · Soho House"
        profile.tags = ["art", "tennis"]
        profile.interests = ["jazz"]
        profile.preferredCuisines = ["peruvian", "sushi"]
        profile.neighborhood = "Wynwood"
        profile.location = miami
        profile.distanceMeters = 1234.5
        profile.active = true
        profile.onboardingComplete = true
        profile.verified = true
        profile.photoIDs = [photo, accountID]
        profile.role = "viewer"
        profile.lastActiveAt = Timestamp(seconds: 1_795_000_100)
        profile.createdAt = Timestamp(seconds: 1_795_000_000, nanos: 5_000)
        profile.updatedAt = Timestamp(seconds: 1_795_000_200)
        let profileJSON = """
            {"account_id": "\(accountID)", "app": "firstdate", "username": "maya_r", "display_name": "Maya",
             "public_name": "Maya Reyes", "show_real_name": true, "first_name": "Maya", "last_name": "Reyes",
             "birth_date": \(birthDateJSON), "age": 31, "gender": "GENDER_FEMALE", "bio": \(unicodeJSON),
             "title": "Art Director · Soho House", "tags": ["art", "tennis"], "interests": ["jazz"],
             "preferred_cuisines": ["peruvian", "sushi"], "neighborhood": "Wynwood", "location": \(miamiJSON),
             "distance_meters": 1234.5, "active": true, "onboarding_complete": true, "verified": true,
             "photo_ids": ["\(photo)", "\(accountID)"], "role": "viewer", "last_active_at": "2026-11-18T11:08:20Z",
             "created_at": "2026-11-18T11:06:40.000005Z", "updated_at": "2026-11-18T11:10:00Z"}
            """
        var unknownGender = Profiles.Profile()
        unknownGender.gender = Profiles.Gender(rawValue: 9)

        var fields = Profiles.ProfileFields()
        fields.username = "maya_r"
        fields.displayName = "Maya"
        fields.showRealName = true
        fields.firstName = "Maya"
        fields.lastName = "Reyes"
        fields.birthDate = birthDate
        fields.gender = .nonBinary
        fields.bio = "line one\nline two"
        fields.title = "Chef"
        fields.tags = ["a", "b"]
        fields.interests = ["c"]
        fields.preferredCuisines = ["d"]
        fields.neighborhood = "Brickell"
        fields.location = Profiles.GeoPoint(latitude: -33.5, longitude: 151.25)
        fields.active = true
        fields.onboardingComplete = true
        fields.photoIDs = [photo]
        let fieldsJSON = """
            {"username": "maya_r", "display_name": "Maya", "show_real_name": true, "first_name": "Maya",
             "last_name": "Reyes", "birth_date": \(birthDateJSON), "gender": "GENDER_NON_BINARY",
             "bio": "line one\\nline two", "title": "Chef", "tags": ["a", "b"], "interests": ["c"],
             "preferred_cuisines": ["d"], "neighborhood": "Brickell", "location": {"latitude": -33.5, "longitude": 151.25},
             "active": true, "onboarding_complete": true, "photo_ids": ["\(photo)"]}
            """

        var changed = Profiles.RoleChanged()
        changed.accountID = accountID
        changed.app = "firstdate"
        changed.previousRole = "viewer"
        changed.role = "host"
        changed.changedBy = photo
        changed.changedAt = Timestamp(seconds: 1_795_000_000)

        return [
            ConformanceCase("default", Profiles.CalendarDate(), proto: package + "CalendarDate", json: "{}"),
            ConformanceCase("full", birthDate, proto: package + "CalendarDate", json: birthDateJSON),
            ConformanceCase("default", Profiles.GeoPoint(), proto: package + "GeoPoint", json: "{}"),
            ConformanceCase("miami", miami, proto: package + "GeoPoint", json: miamiJSON),
            ConformanceCase("extremes", Profiles.GeoPoint(latitude: -90, longitude: 180), proto: package + "GeoPoint",
                            json: #"{"latitude": -90, "longitude": 180}"#),
            ConformanceCase("default", Profiles.Profile(), proto: package + "Profile", json: "{}"),
            ConformanceCase("full", profile, proto: package + "Profile", json: profileJSON),
            ConformanceCase("unknownGender", unknownGender, proto: package + "Profile", json: #"{"gender": 9}"#),
            ConformanceCase("default", Profiles.ProfileFields(), proto: package + "ProfileFields", json: "{}"),
            ConformanceCase("full", fields, proto: package + "ProfileFields", json: fieldsJSON),
            ConformanceCase("default", Profiles.GetMyProfileRequest(), proto: package + "GetMyProfileRequest", json: "{}"),
            ConformanceCase("default", Profiles.UpdateProfileRequest(), proto: package + "UpdateProfileRequest", json: "{}"),
            ConformanceCase("clearBio", Profiles.UpdateProfileRequest(fields: Profiles.ProfileFields(), updateMask: ["bio"]),
                            proto: package + "UpdateProfileRequest", json: #"{"fields": {}, "update_mask": ["bio"]}"#),
            ConformanceCase("full", Profiles.UpdateProfileRequest(fields: fields, updateMask: ["username", "tags"]),
                            proto: package + "UpdateProfileRequest",
                            json: #"{"fields": \#(fieldsJSON), "update_mask": ["username", "tags"]}"#),
            ConformanceCase("default", Profiles.GetProfileRequest(), proto: package + "GetProfileRequest", json: "{}"),
            ConformanceCase("id", Profiles.GetProfileRequest(accountID: accountID), proto: package + "GetProfileRequest",
                            json: #"{"account_id": "\#(accountID)"}"#),
            ConformanceCase("default", Profiles.GetProfileByUsernameRequest(), proto: package + "GetProfileByUsernameRequest",
                            json: "{}"),
            ConformanceCase("name", Profiles.GetProfileByUsernameRequest(username: "anon-7k3q"),
                            proto: package + "GetProfileByUsernameRequest", json: #"{"username": "anon-7k3q"}"#),
            ConformanceCase("default", Profiles.ListProfilesRequest(), proto: package + "ListProfilesRequest", json: "{}"),
            ConformanceCase("full", Profiles.ListProfilesRequest(pageSize: 200, pageToken: "MTIzLmFi", activeOnly: true),
                            proto: package + "ListProfilesRequest",
                            json: #"{"page_size": 200, "page_token": "MTIzLmFi", "active_only": true}"#),
            ConformanceCase("negativeSize", Profiles.ListProfilesRequest(pageSize: -1), proto: package + "ListProfilesRequest",
                            json: #"{"page_size": -1}"#),
            ConformanceCase("default", Profiles.ListProfilesResponse(), proto: package + "ListProfilesResponse", json: "{}"),
            ConformanceCase("two", Profiles.ListProfilesResponse(profiles: [profile, Profiles.Profile()], nextPageToken: "MTIzLmFi"),
                            proto: package + "ListProfilesResponse",
                            json: #"{"profiles": [\#(profileJSON), {}], "next_page_token": "MTIzLmFi"}"#),
            ConformanceCase("default", Profiles.SetVerifiedRequest(), proto: package + "SetVerifiedRequest", json: "{}"),
            ConformanceCase("full", Profiles.SetVerifiedRequest(accountID: accountID, verified: true),
                            proto: package + "SetVerifiedRequest", json: #"{"account_id": "\#(accountID)", "verified": true}"#),
            ConformanceCase("default", Profiles.BecomeApplicantRequest(), proto: package + "BecomeApplicantRequest", json: "{}"),
            ConformanceCase("default", Profiles.SetRoleRequest(), proto: package + "SetRoleRequest", json: "{}"),
            ConformanceCase("full", Profiles.SetRoleRequest(accountID: accountID, role: "host"), proto: package + "SetRoleRequest",
                            json: #"{"account_id": "\#(accountID)", "role": "host"}"#),
            ConformanceCase("default", Profiles.RoleAssignment(), proto: package + "RoleAssignment", json: "{}"),
            ConformanceCase("full", Profiles.RoleAssignment(accountID: accountID, role: "applicant", previousRole: "viewer",
                                                            changed: true),
                            proto: package + "RoleAssignment",
                            json: #"{"account_id": "\#(accountID)", "role": "applicant", "previous_role": "viewer", "changed": true}"#),
            ConformanceCase("default", Profiles.RoleChanged(), proto: package + "RoleChanged", json: "{}"),
            ConformanceCase("full", changed, proto: package + "RoleChanged", json: """
                {"account_id": "\(accountID)", "app": "firstdate", "previous_role": "viewer", "role": "host",
                 "changed_by": "\(photo)", "changed_at": "2026-11-18T11:06:40Z"}
                """),
        ]
    }()
}
