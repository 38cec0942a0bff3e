import Contracts
import Foundation
import GatewayClient
import RPC
import Testing

/// Profiles and roles on the identity executable, driven only through GatewayClient (admins
/// and hosts are made with `identity grant-role`, as an operator makes the first one).
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndProfilesTests {
    // MARK: Own profile

    @Test func updateOwnProfile_thenReadItBack_andAnotherMemberSeesTheMemberView() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let owner = try await users.signUp("momento")
        let other = try await users.signUp("momento")
        let username = "maya_" + String(UUID().uuidString.prefix(8)).lowercased()

        var fields = Profiles.ProfileFields()
        fields.username = " \(username.uppercased()) "
        fields.displayName = "  Maya  "
        fields.bio = "Curator.\nLoves tennis."
        fields.tags = ["art", "Art", " tennis "]
        fields.birthDate = Profiles.CalendarDate(year: 1994, month: 2, day: 28)
        fields.firstName = "Maya"
        let saved = try await owner.client.profiles.updateProfile(
            fields, mask: ["username", "display_name", "bio", "tags", "birth_date", "first_name"])
        #expect(saved.username == username && saved.displayName == "Maya" && saved.tags == ["art", "tennis"])

        let mine = try await owner.client.profiles.getMyProfile()
        #expect(mine.accountID == owner.id && mine.username == username && mine.publicName == "Maya")
        #expect(mine.bio == "Curator.\nLoves tennis." && mine.tags == ["art", "tennis"])
        #expect(mine.birthDate == Profiles.CalendarDate(year: 1994, month: 2, day: 28) && mine.firstName == "Maya")
        #expect(mine.updatedAt != nil)

        // Only the masked field changes; the others keep their values.
        fields.bio = "Back from Lisbon."
        fields.displayName = "ignored"
        let second = try await owner.client.profiles.updateProfile(fields, mask: ["bio"])
        #expect(second.bio == "Back from Lisbon." && second.displayName == "Maya")

        // Another member: the member view, by id and by username (any case).
        let seen = try await other.client.profiles.getProfile(accountID: owner.id)
        #expect(seen.username == username && seen.bio == "Back from Lisbon." && seen.age >= 30)
        #expect(seen.birthDate == nil && seen.firstName.isEmpty)
        #expect(try await other.client.profiles.getProfile(username: username.uppercased()).accountID == owner.id)
    }

    @Test func aTakenUsername_isAlreadyExists_usernameTaken() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let first = try await users.signUp("unseen")
        let second = try await users.signUp("unseen")
        let name = "taken_" + String(UUID().uuidString.prefix(8)).lowercased()
        var fields = Profiles.ProfileFields()
        fields.username = name
        _ = try await first.client.profiles.updateProfile(fields, mask: ["username"])

        fields.username = name.uppercased()
        let taken = await gatewayError { _ = try await second.client.profiles.updateProfile(fields, mask: ["username"]) }
        expectFailure(taken, .alreadyExists, "USERNAME_TAKEN")
        #expect(try await second.client.profiles.getMyProfile().username == second.account.username)
    }

    @Test(arguments: ["ab", String(repeating: "a", count: 31), "anon-abcd", "has space", "dot.name"])
    func aUsernameBreakingTheRules_isInvalidUsername(_ name: String) async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("swivo")
        var fields = Profiles.ProfileFields()
        fields.username = name
        let error = await gatewayError { _ = try await user.client.profiles.updateProfile(fields, mask: ["username"]) }
        expectFailure(error, .invalidArgument, "INVALID_USERNAME")
    }

    @Test func aBioOverFiveHundredCharacters_isBioTooLong_namingTheLimit() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("momento")
        var fields = Profiles.ProfileFields()
        fields.bio = String(repeating: "é", count: 501)
        let error = await gatewayError { _ = try await user.client.profiles.updateProfile(fields, mask: ["bio"]) }
        expectFailure(error, .invalidArgument, "BIO_TOO_LONG")
        #expect(error?.details["max_length"] == "500")
        #expect(try await user.client.profiles.getMyProfile().bio.isEmpty)
    }

    @Test func nineTags_isTooManyTags_namingTheLimit() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("elite")
        var fields = Profiles.ProfileFields()
        fields.tags = (1...9).map { "tag\($0)" }
        let error = await gatewayError { _ = try await user.client.profiles.updateProfile(fields, mask: ["tags"]) }
        expectFailure(error, .invalidArgument, "TOO_MANY_TAGS")
        #expect(error?.details["max_count"] == "8")
    }

    @Test func aBirthDateUnderTheAppsMinimumAge_isUnderage() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("firstdate")
        let thisYear = Calendar(identifier: .gregorian).component(.year, from: Date())
        var fields = Profiles.ProfileFields()
        // Nine or ten years old.
        fields.birthDate = Profiles.CalendarDate(year: Int32(thisYear - 10), month: 1, day: 1)
        let error = await gatewayError { _ = try await user.client.profiles.updateProfile(fields, mask: ["birth_date"]) }
        expectFailure(error, .invalidArgument, "UNDERAGE")
        #expect(error?.details["minimum_age"] == "18")
    }

    // MARK: Who reads what

    @Test func anInactiveProfile_isNotFoundToAViewer_butAHostReadsItInFull() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let owner = try await users.signUp("firstdate")
        let viewer = try await users.signUp("firstdate")
        let host = try await users.signUp("firstdate", role: "host")
        var fields = Profiles.ProfileFields()
        fields.birthDate = Profiles.CalendarDate(year: 1990, month: 6, day: 1)
        _ = try await owner.client.profiles.updateProfile(fields, mask: ["birth_date"])
        #expect(try await viewer.client.profiles.getProfile(accountID: owner.id).active)

        fields.active = false
        _ = try await owner.client.profiles.updateProfile(fields, mask: ["active"])
        let hidden = await gatewayError { _ = try await viewer.client.profiles.getProfile(accountID: owner.id) }
        expectFailure(hidden, .notFound, "USER_NOT_FOUND")
        let byName = await gatewayError { _ = try await viewer.client.profiles.getProfile(username: owner.account.username) }
        expectFailure(byName, .notFound, "USER_NOT_FOUND")

        let full = try await host.client.profiles.getProfile(accountID: owner.id)
        #expect(!full.active && full.birthDate == Profiles.CalendarDate(year: 1990, month: 6, day: 1))
        #expect(try await owner.client.profiles.getMyProfile().active == false)
    }

    @Test func anotherAppsProfile_isNotFound_byIdAndByUsername() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let momento = try await users.signUp("momento")
        let swivo = try await users.signUp("swivo")
        let byID = await gatewayError { _ = try await swivo.client.profiles.getProfile(accountID: momento.id) }
        expectFailure(byID, .notFound, "USER_NOT_FOUND")
        let byName = await gatewayError { _ = try await swivo.client.profiles.getProfile(username: momento.account.username) }
        expectFailure(byName, .notFound, "USER_NOT_FOUND")
    }

    @Test func listProfiles_isForProfileReaders_andPagesThroughTheApp() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let viewer = try await users.signUp("firstdate")
        _ = try await users.signUp("firstdate")
        let host = try await users.signUp("firstdate", role: "host")
        let refused = await gatewayError { _ = try await viewer.client.profiles.listProfiles() }
        expectFailure(refused, .permissionDenied, "ROLE_REQUIRED")

        let first = try await host.client.profiles.listProfiles(pageSize: 2)
        #expect(first.profiles.count == 2 && !first.nextPageToken.isEmpty)
        #expect(first.profiles.allSatisfy { $0.app == "firstdate" })
        let second = try await host.client.profiles.listProfiles(pageSize: 2, pageToken: first.nextPageToken)
        #expect(Set(second.profiles.map(\.accountID)).isDisjoint(with: first.profiles.map(\.accountID)))
        let badToken = await gatewayError { _ = try await host.client.profiles.listProfiles(pageToken: "garbage!") }
        expectFailure(badToken, .invalidArgument, "INVALID_PAGE_TOKEN")
    }

    @Test func setVerified_isForAdmins_andShowsTheBadge() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let member = try await users.signUp("swivo")
        let other = try await users.signUp("swivo")
        let admin = try await users.signUp("swivo", role: "admin")
        let refused = await gatewayError { _ = try await other.client.profiles.setVerified(accountID: member.id, verified: true) }
        expectFailure(refused, .permissionDenied, "ADMIN_ONLY")
        #expect(try await admin.client.profiles.setVerified(accountID: member.id, verified: true).verified)
        #expect(try await other.client.profiles.getProfile(accountID: member.id).verified)
    }

    // MARK: Roles

    @Test func becomeApplicant_changesTheRole_andTheRefreshedTokenCarriesIt() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let viewer = try await users.signUp("firstdate")
        #expect(try viewer.tokenClaims().string("role") == "viewer")

        let applied = try await viewer.client.profiles.becomeApplicant()
        #expect(applied.changed && applied.role == "applicant" && applied.previousRole == "viewer")
        #expect(try await viewer.client.profiles.getMyProfile().role == "applicant")
        // The token issued before the change was refused as stale (TOKEN_STALE) on the next
        // call, which the client answered with one refresh: the token in hand carries the role.
        #expect(try viewer.tokenClaims().string("role") == "applicant")
        try await viewer.client.identity.refreshSession()
        #expect(try viewer.tokenClaims().string("role") == "applicant")

        let again = try await viewer.client.profiles.becomeApplicant()
        #expect(!again.changed && again.role == "applicant")
    }

    @Test func becomeApplicant_inAnAppWithoutApplications_isApplicationsNotOffered() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let member = try await users.signUp("swivo")
        let error = await gatewayError { _ = try await member.client.profiles.becomeApplicant() }
        expectFailure(error, .failedPrecondition, "APPLICATIONS_NOT_OFFERED")
    }

    @Test func setRole_byANonAdmin_isAdminOnly_byAnAdmin_takesEffectAtOnce() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let viewer = try await users.signUp("firstdate")
        let host = try await users.signUp("firstdate", role: "host")
        let admin = try await users.signUp("firstdate", role: "admin")
        for caller in [viewer, host] {
            let refused = await gatewayError { _ = try await caller.client.profiles.setRole(accountID: viewer.id, role: "host") }
            expectFailure(refused, .permissionDenied, "ADMIN_ONLY")
        }
        #expect(try await viewer.client.profiles.getMyProfile().role == "viewer")

        let promoted = try await admin.client.profiles.setRole(accountID: viewer.id, role: "host")
        #expect(promoted.changed && promoted.role == "host" && promoted.previousRole == "viewer")
        // Roles are read from the database: the new host lists profiles with its old token.
        _ = try await viewer.client.profiles.listProfiles(pageSize: 1)

        let unknown = await gatewayError { _ = try await admin.client.profiles.setRole(accountID: viewer.id, role: "member") }
        expectFailure(unknown, .invalidArgument, "UNKNOWN_ROLE")
        let own = await gatewayError { _ = try await admin.client.profiles.setRole(accountID: admin.id, role: "viewer") }
        expectFailure(own, .failedPrecondition, "CANNOT_CHANGE_OWN_ROLE")
    }
}
