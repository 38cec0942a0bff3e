import Contracts
import Foundation
@testable import Identity
import Postgres
import RPC
import Runtime
import Testing

/// Profiles over a live socket: defaults, field-mask updates, validation, who reads what.
@Suite struct ProfileTests {
    // MARK: - Own profile

    @Test func getMyProfile_beforeAnyWrite_hasDefaults_andMarksTheOwnerActive() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("swivo")
        let profile = try await harness.profiles.getMyProfile(options: user.options)
        #expect(profile.accountID == user.id && profile.app == "swivo")
        #expect(profile.username == user.username && profile.username.hasPrefix("anon-"))
        #expect(profile.publicName == user.username)
        #expect(profile.active && !profile.onboardingComplete && !profile.verified)
        #expect(profile.role == "member")
        #expect(profile.createdAt != nil && profile.lastActiveAt != nil && profile.updatedAt == nil)
        await harness.stop()
    }

    /// Owners' updates arriving together share commits (group commit): 16 FirstDate members
    /// each set a name, 8 of them set tags at the same time, and 2 others ask for something their
    /// profile refuses. Every update is answered once committed, each ProfileUpdated event is
    /// written once, a profile's two updates both hold, and the refused two fail alone.
    @Test func concurrentUpdates_shareCommits_andARefusedOneFailsAlone() async throws {
        let harness = try await IdentityHarness.start()
        var joined: [TestUser] = []
        for _ in 0..<18 { joined.append(try await harness.newUser("firstdate")) }
        let users = joined
        let pool = harness.pool
        enum Change: Sendable { case name(Int), tags(Int), onboarding(Int) }
        let changes = (0..<16).map(Change.name) + (0..<8).map(Change.tags) + [Change.onboarding(16), .onboarding(17)]
        let answers = await withTaskGroup(of: (Int, Result<Profiles.Profile, RPCError>, Int64).self) { group in
            for (index, change) in changes.enumerated() {
                group.addTask {
                    do {
                        let profile: Profiles.Profile
                        switch change {
                        case .name(let n): profile = try await harness.update(users[n], ["display_name"]) { $0.displayName = "Member \(n)" }
                        case .tags(let n): profile = try await harness.update(users[n], ["tags"]) { $0.tags = ["tag\(n)"] }
                        case .onboarding(let n):
                            profile = try await harness.update(users[n], ["onboarding_complete"]) { $0.onboardingComplete = true }
                        }
                        // Read at once, by another connection: the answer means it is committed.
                        let events = try await pool.withConnection { connection in
                            try await connection.query("""
                                SELECT count(*) FROM identity.outbox WHERE type = 'ProfileUpdated' AND aggregate_id = $1
                                """, [.text(profile.accountID)])[0].decode(0, as: Int64.self)
                        }
                        return (index, .success(profile), events)
                    } catch let error as RPCError {
                        return (index, .failure(error), 0)
                    } catch {
                        return (index, .failure(RPCError(code: .unknown, message: "\(error)")), 0)
                    }
                }
            }
            return await group.reduce(into: [Int: (Result<Profiles.Profile, RPCError>, Int64)]()) { $0[$1.0] = ($1.1, $1.2) }
        }
        #expect(answers.count == changes.count)
        for (index, change) in changes.enumerated() {
            let (result, events) = try #require(answers[index])
            switch change {
            case .name(let n), .tags(let n):
                let profile = try result.get()
                #expect(profile.accountID == users[n].id)
                #expect(events >= 1, "update \(index) was answered before its event was committed")
            case .onboarding:
                if case .failure(let error) = result {
                    expectError(error, .invalidArgument, "BIRTH_DATE_REQUIRED")
                } else {
                    Issue.record("onboarding without a birth date was accepted")
                }
            }
        }
        for n in 0..<16 {
            let profile = try await harness.profiles.getMyProfile(options: users[n].options)
            #expect(profile.displayName == "Member \(n)")
            #expect(profile.tags == (n < 8 ? ["tag\(n)"] : []))
            #expect(try await harness.eventCount("ProfileUpdated", aggregateID: users[n].id) == (n < 8 ? 2 : 1))
        }
        for n in 16..<18 {
            #expect(try await harness.eventCount("ProfileUpdated", aggregateID: users[n].id) == 0)
            #expect(try await harness.profiles.getMyProfile(options: users[n].options).onboardingComplete == false)
        }
        let commits = try await pool.withConnection { connection in
            try await connection.query("SELECT count(DISTINCT xmin::text) FROM identity.profiles WHERE account_id = ANY($1::uuid[])",
                                       [.uuidArray(users.prefix(16).compactMap { UUID(uuidString: $0.id) })])[0].decode(0, as: Int64.self)
        }
        #expect(commits < 16, "16 concurrent updates were 16 commits: none shared a batch")
        await harness.stop()
    }

    @Test func updateProfile_setsOnlyMaskedFields_emptyValuesClear_andEmitsProfileUpdated() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("elite")
        let first = try await harness.update(user, ["display_name", "bio", "tags", "title", "gender", "birth_date",
                                                    "first_name", "last_name", "interests", "preferred_cuisines",
                                                    "neighborhood"]) {
            $0.displayName = "  Maya  "
            $0.bio = "Curator.\r\nLoves tennis."
            $0.tags = ["art", "Art", " tennis "]
            $0.title = "Art Director · Soho House"
            $0.gender = .female
            $0.birthDate = .init(year: 1994, month: 2, day: 28)
            $0.firstName = "Maya"
            $0.lastName = "Reyes"
            $0.interests = ["jazz"]
            $0.preferredCuisines = ["peruvian"]
            $0.neighborhood = "Wynwood"
        }
        #expect(first.displayName == "Maya" && first.publicName == "Maya")
        #expect(first.bio == "Curator.\nLoves tennis.")
        #expect(first.tags == ["art", "tennis"])
        #expect(first.gender == .female && first.birthDate == .init(year: 1994, month: 2, day: 28) && first.age >= 30)
        #expect(first.updatedAt != nil)

        // Only the masked field changes; an empty value clears it; unmasked values in `fields` are ignored.
        let second = try await harness.update(user, ["bio", "show_real_name"]) {
            $0.showRealName = true
            $0.title = "ignored: not in the mask"
        }
        #expect(second.bio.isEmpty && second.showRealName && second.publicName == "Maya Reyes")
        #expect(second.title == "Art Director · Soho House" && second.tags == ["art", "tennis"])
        let cleared = try await harness.update(user, ["birth_date", "gender", "tags"])
        #expect(cleared.birthDate == nil && cleared.age == 0 && cleared.gender == .unspecified && cleared.tags.isEmpty)

        let events = try await harness.eventPayloads("ProfileUpdated", aggregateID: user.id)
        #expect(events.count == 3)
        let last = try Profiles.Profile(serializedBytes: try #require(events.last))
        #expect(last.accountID == user.id && last.tags.isEmpty && last.showRealName)
        await harness.stop()
    }

    @Test func updateProfile_emptyMask_isUpdateMaskRequired_andUnknownOrSystemField_isUnknownField() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("momento")
        expectError(await rpcError { try await harness.update(user, []) }, .invalidArgument, "UPDATE_MASK_REQUIRED")
        for name in ["verified", "role", "nope", "displayName"] {
            expectError(await rpcError { try await harness.update(user, [name]) }, .invalidArgument, "UNKNOWN_FIELD")
        }
        await harness.stop()
    }

    // MARK: - Usernames

    @Test func username_isStoredLowercase_andFindsTheProfile_andTheOldAnonNameIsFree() async throws {
        let harness = try await IdentityHarness.start()
        let owner = try await harness.newUser("swivo")
        let other = try await harness.newUser("swivo")
        let name = "Maya_" + String(UUID().uuidString.prefix(8))
        let updated = try await harness.update(owner, ["username"]) { $0.username = " \(name) " }
        #expect(updated.username == name.lowercased())
        let found = try await harness.profiles.getProfileByUsername(.init(username: name.uppercased()), options: other.options)
        #expect(found.accountID == owner.id)
        let account = try await harness.client.getAccount(options: owner.options)
        #expect(account.username == name.lowercased())
        // The generated name still finds an account that kept it.
        let anon = try await harness.profiles.getProfileByUsername(.init(username: other.username), options: owner.options)
        #expect(anon.accountID == other.id)
        expectError(await rpcError {
            _ = try await harness.profiles.getProfileByUsername(.init(username: owner.username), options: other.options)
        }, .notFound, "USER_NOT_FOUND")
        await harness.stop()
    }

    @Test func username_takenInTheApp_isAlreadyExists_butFreeInAnotherApp() async throws {
        let harness = try await IdentityHarness.start()
        let name = "taken_" + String(UUID().uuidString.prefix(8)).lowercased()
        let first = try await harness.newUser("unseen")
        let second = try await harness.newUser("unseen")
        let elsewhere = try await harness.newUser("swivo")
        try await harness.update(first, ["username"]) { $0.username = name }
        expectError(await rpcError { try await harness.update(second, ["username"]) { $0.username = name.uppercased() } },
                    .alreadyExists, "USERNAME_TAKEN")
        #expect(try await harness.update(elsewhere, ["username"]) { $0.username = name }.username == name)
        // Setting one's own name again is fine.
        #expect(try await harness.update(first, ["username", "bio"]) { $0.username = name; $0.bio = "hi" }.bio == "hi")
        await harness.stop()
    }

    @Test func checkUsername_isAvailableUntilAnotherAccountOfTheAppTakesIt() async throws {
        let harness = try await IdentityHarness.start()
        let name = "check_" + String(UUID().uuidString.prefix(8)).lowercased()
        let owner = try await harness.newUser("unseen")
        let other = try await harness.newUser("unseen")
        let elsewhere = try await harness.newUser("swivo")
        let free = try await harness.profiles.checkUsername(.init(username: "  \(name.uppercased()) "), options: other.options)
        #expect(free == .init(username: name, available: true))
        try await harness.update(owner, ["username"]) { $0.username = name }
        #expect(try await harness.profiles.checkUsername(.init(username: name), options: other.options).available == false)
        #expect(try await harness.profiles.checkUsername(.init(username: name), options: owner.options).available)
        #expect(try await harness.profiles.checkUsername(.init(username: name), options: elsewhere.options).available)
        expectError(await rpcError { _ = try await harness.profiles.checkUsername(.init(username: "anon-abcd"), options: other.options) },
                    .invalidArgument, "INVALID_USERNAME")
        expectError(await rpcError { _ = try await harness.profiles.checkUsername(.init(username: name)) },
                    .unauthenticated, "MISSING_TOKEN")
        await harness.stop()
    }

    @Test(arguments: ["", "ab", String(repeating: "a", count: 31), "anon-abcd", "has space", "émile", "dot.name", "a😀b"])
    func username_breakingTheRules_isInvalidUsername(_ name: String) async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("swivo")
        expectError(await rpcError { try await harness.update(user, ["username"]) { $0.username = name } },
                    .invalidArgument, "INVALID_USERNAME")
        await harness.stop()
    }

    @Test func username_twoAccountsClaimingOneNameAtOnce_exactlyOneWins() async throws {
        let harness = try await IdentityHarness.start()
        let name = "race_" + String(UUID().uuidString.prefix(8)).lowercased()
        var users: [TestUser] = []
        for _ in 0..<4 { users.append(try await harness.newUser("unseen")) }
        let outcomes = await withTaskGroup(of: String.self) { group in
            for user in users {
                group.addTask {
                    do {
                        _ = try await harness.update(user, ["username"]) { $0.username = name }
                        return "won"
                    } catch let error as RPCError {
                        return error.reason ?? "\(error.code)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "won" }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == "USERNAME_TAKEN" }.count == 3, "\(outcomes)")
        await harness.stop()
    }

    // MARK: - Text, lists, photos, location

    @Test func bio_overTheLimit_isBioTooLong_atTheLimitIsKept() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("momento")
        let error = await rpcError { try await harness.update(user, ["bio"]) { $0.bio = String(repeating: "é", count: 501) } }
        expectError(error, .invalidArgument, "BIO_TOO_LONG")
        #expect(error?.details["max_length"] == "500")
        let kept = try await harness.update(user, ["bio"]) { $0.bio = String(repeating: "👍🏽", count: 500) }
        #expect(kept.bio.count == 500)
        await harness.stop()
    }

    @Test(arguments: ["display_name", "first_name", "last_name", "title", "neighborhood", "bio"])
    func text_withControlCharacters_isInvalidText(_ field: String) async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("momento")
        for text in ["bell\u{7}", "nul\u{0}x", "rtl\u{202E}override", "esc\u{1B}[31m"] {
            let error = await rpcError {
                try await harness.update(user, [field]) { fields in
                    switch field {
                    case "display_name": fields.displayName = text
                    case "first_name": fields.firstName = text
                    case "last_name": fields.lastName = text
                    case "title": fields.title = text
                    case "neighborhood": fields.neighborhood = text
                    default: fields.bio = text
                    }
                }
            }
            expectError(error, .invalidArgument, "INVALID_TEXT")
            #expect(error?.details["field"] == field)
        }
        await harness.stop()
    }

    @Test func displayName_overFiftyCharacters_isFieldTooLong() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("momento")
        let error = await rpcError { try await harness.update(user, ["display_name"]) { $0.displayName = String(repeating: "x", count: 51) } }
        expectError(error, .invalidArgument, "FIELD_TOO_LONG")
        #expect(error?.details["field"] == "display_name" && error?.details["max_length"] == "50")
        // A newline is a control character outside the bio.
        expectError(await rpcError { try await harness.update(user, ["display_name"]) { $0.displayName = "two\nlines" } },
                    .invalidArgument, "INVALID_TEXT")
        await harness.stop()
    }

    @Test func tags_nineAreTooMany_eightAreKept_andEachIsBounded() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("elite")
        let nine = (1...9).map { "tag\($0)" }
        let error = await rpcError { try await harness.update(user, ["tags"]) { $0.tags = nine } }
        expectError(error, .invalidArgument, "TOO_MANY_TAGS")
        #expect(error?.details["max_count"] == "8")
        #expect(try await harness.update(user, ["tags"]) { $0.tags = Array(nine.prefix(8)) }.tags.count == 8)
        // Nine with a duplicate are eight.
        #expect(try await harness.update(user, ["tags"]) { $0.tags = Array(nine.prefix(8)) + ["TAG1"] }.tags.count == 8)
        expectError(await rpcError { try await harness.update(user, ["tags"]) { $0.tags = [String(repeating: "t", count: 31)] } },
                    .invalidArgument, "FIELD_TOO_LONG")
        expectError(await rpcError { try await harness.update(user, ["tags"]) { $0.tags = ["ok", "  "] } },
                    .invalidArgument, "INVALID_TEXT")
        expectError(await rpcError { try await harness.update(user, ["interests"]) { $0.interests = (1...21).map { "i\($0)" } } },
                    .invalidArgument, "TOO_MANY_VALUES")
        await harness.stop()
    }

    @Test func photos_keepTheirOrder_areBoundedByTheAppsPolicy_andMustBeDistinctUUIDs() async throws {
        let harness = try await IdentityHarness.start()
        let member = try await harness.newUser("elite")
        let ids = (0..<10).map { _ in UUID().uuidString.lowercased() }
        let six = try await harness.update(member, ["photo_ids"]) { $0.photoIDs = Array(ids.prefix(6).reversed()) }
        #expect(six.photoIDs == Array(ids.prefix(6).reversed()))
        let error = await rpcError { try await harness.update(member, ["photo_ids"]) { $0.photoIDs = Array(ids.prefix(7)) } }
        expectError(error, .invalidArgument, "TOO_MANY_PHOTOS")
        #expect(error?.details["max_count"] == "6")
        let momento = try await harness.newUser("momento")
        #expect(try await harness.update(momento, ["photo_ids"]) { $0.photoIDs = Array(ids.prefix(9)) }.photoIDs.count == 9)
        expectError(await rpcError { try await harness.update(momento, ["photo_ids"]) { $0.photoIDs = ids } },
                    .invalidArgument, "TOO_MANY_PHOTOS")
        for bad in [["not-a-uuid"], [ids[0], ids[0].uppercased()]] {
            expectError(await rpcError { try await harness.update(momento, ["photo_ids"]) { $0.photoIDs = bad } },
                        .invalidArgument, "INVALID_PHOTO_ID")
        }
        await harness.stop()
    }

    @Test func location_outOfRange_isInvalidLocation_andMembersSeeADistanceNotThePoint() async throws {
        let harness = try await IdentityHarness.start()
        let maya = try await harness.newUser("momento")
        let leo = try await harness.newUser("momento")
        for point in [(90.5, 0.0), (0.0, -180.1), (Double.nan, 1.0), (1.0, Double.infinity)] {
            expectError(await rpcError {
                try await harness.update(maya, ["location"]) { $0.location = .init(latitude: point.0, longitude: point.1) }
            }, .invalidArgument, "INVALID_LOCATION")
        }
        let own = try await harness.update(maya, ["location"]) { $0.location = .init(latitude: 25.7617, longitude: -80.1918) }
        #expect(own.location == .init(latitude: 25.7617, longitude: -80.1918))
        let seenBeforeLeoHasOne = try await harness.profiles.getProfile(.init(accountID: maya.id), options: leo.options)
        #expect(seenBeforeLeoHasOne.location == nil && seenBeforeLeoHasOne.distanceMeters == 0)
        try await harness.update(leo, ["location"]) { $0.location = .init(latitude: 25.8005, longitude: -80.1994) }
        let seen = try await harness.profiles.getProfile(.init(accountID: maya.id), options: leo.options)
        #expect(seen.location == nil)
        // Miami to Wynwood is 4.4 km. Members see whole kilometres measured from each other's
        // grid point, never the metres that would place them: from Maya's (25.76, -80.19) it is
        // 4.6 km, shown as 5.
        #expect(seen.distanceMeters == 5000, "Miami to Wynwood: \(seen.distanceMeters)")
        let cleared = try await harness.update(maya, ["location"])
        #expect(cleared.location == nil)
        await harness.stop()
    }

    // MARK: - Birth dates and ages

    @Test func birthDate_underTheAppsMinimumAge_isUnderage_exactlyTheMinimumIsKept() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("firstdate")
        let error = await rpcError { try await harness.update(user, ["birth_date"]) { $0.birthDate = Self.date(yearsAgo: 18, plusDays: 1) } }
        expectError(error, .invalidArgument, "UNDERAGE")
        #expect(error?.details["minimum_age"] == "18")
        let adult = try await harness.update(user, ["birth_date"]) { $0.birthDate = Self.date(yearsAgo: 18) }
        #expect(adult.age == 18)
        // Momento has no minimum age.
        let child = try await harness.newUser("momento")
        #expect(try await harness.update(child, ["birth_date"]) { $0.birthDate = Self.date(yearsAgo: 10) }.age == 10)
        await harness.stop()
    }

    @Test(arguments: [(2001, 2, 29), (1994, 13, 1), (1994, 4, 31), (1899, 12, 31), (1994, 0, 10), (2001, 1, 0)])
    func birthDate_notACalendarDay_isInvalidBirthDate(_ date: (Int32, Int32, Int32)) async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("momento")
        expectError(await rpcError {
            try await harness.update(user, ["birth_date"]) { $0.birthDate = .init(year: date.0, month: date.1, day: date.2) }
        }, .invalidArgument, "INVALID_BIRTH_DATE")
        await harness.stop()
    }

    @Test func birthDate_inTheFuture_isInvalid_andLeapDayIsAccepted() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("momento")
        expectError(await rpcError { try await harness.update(user, ["birth_date"]) { $0.birthDate = Self.date(yearsAgo: 0, plusDays: 1) } },
                    .invalidArgument, "INVALID_BIRTH_DATE")
        #expect(try await harness.update(user, ["birth_date"]) { $0.birthDate = .init(year: 2000, month: 2, day: 29) }.birthDate
                == .init(year: 2000, month: 2, day: 29))
        await harness.stop()
    }

    @Test func onboardingComplete_inAnAdultsOnlyApp_needsABirthDate() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("firstdate")
        expectError(await rpcError { try await harness.update(user, ["onboarding_complete"]) { $0.onboardingComplete = true } },
                    .invalidArgument, "BIRTH_DATE_REQUIRED")
        let done = try await harness.update(user, ["onboarding_complete", "birth_date"]) {
            $0.onboardingComplete = true
            $0.birthDate = Self.date(yearsAgo: 30)
        }
        #expect(done.onboardingComplete)
        expectError(await rpcError { try await harness.update(user, ["birth_date"]) }, .invalidArgument, "BIRTH_DATE_REQUIRED")
        let momento = try await harness.newUser("momento")
        #expect(try await harness.update(momento, ["onboarding_complete"]) { $0.onboardingComplete = true }.onboardingComplete)
        await harness.stop()
    }

    // MARK: - Who reads what

    @Test func anotherAppsAccount_isNotFound_byIDAndByUsername() async throws {
        let harness = try await IdentityHarness.start()
        let elite = try await harness.newUser("elite")
        let firstdate = try await harness.newUser("firstdate")
        let admin = try await harness.newUser("firstdate", role: "admin")
        for reader in [firstdate, admin] {
            expectError(await rpcError { _ = try await harness.profiles.getProfile(.init(accountID: elite.id), options: reader.options) },
                        .notFound, "USER_NOT_FOUND")
            expectError(await rpcError {
                _ = try await harness.profiles.getProfileByUsername(.init(username: elite.username), options: reader.options)
            }, .notFound, "USER_NOT_FOUND")
        }
        // A UUID that is no account at all reads the same.
        expectError(await rpcError { _ = try await harness.profiles.getProfile(.init(accountID: UUID().uuidString), options: firstdate.options) },
                    .notFound, "USER_NOT_FOUND")
        expectError(await rpcError { _ = try await harness.profiles.getProfile(.init(accountID: "42"), options: firstdate.options) },
                    .invalidArgument, "INVALID_ACCOUNT_ID")
        await harness.stop()
    }

    @Test func inactiveProfile_isNotFoundToAViewer_butAHostAndAnAdminReadIt() async throws {
        let harness = try await IdentityHarness.start()
        let owner = try await harness.newUser("firstdate")
        let viewer = try await harness.newUser("firstdate")
        let host = try await harness.newUser("firstdate", role: "host")
        let admin = try await harness.newUser("firstdate", role: "admin")
        try await harness.update(owner, ["active", "last_name", "first_name", "birth_date", "location"]) {
            $0.active = false
            $0.firstName = "Maya"
            $0.lastName = "Reyes"
            $0.birthDate = Self.date(yearsAgo: 25)
            $0.location = .init(latitude: 25.76, longitude: -80.19)
        }
        expectError(await rpcError { _ = try await harness.profiles.getProfile(.init(accountID: owner.id), options: viewer.options) },
                    .notFound, "USER_NOT_FOUND")
        for reader in [host, admin] {
            let seen = try await harness.profiles.getProfile(.init(accountID: owner.id), options: reader.options)
            #expect(!seen.active && seen.lastName == "Reyes" && seen.birthDate != nil && seen.location != nil)
        }
        // The owner still reads its own inactive profile, by id too.
        #expect(try await harness.profiles.getProfile(.init(accountID: owner.id), options: owner.options).active == false)

        // Active again: the viewer sees the member view.
        try await harness.update(owner, ["active"]) { $0.active = true }
        let seen = try await harness.profiles.getProfile(.init(accountID: owner.id), options: viewer.options)
        #expect(seen.active && seen.age == 25 && seen.birthDate == nil && seen.location == nil)
        #expect(seen.firstName.isEmpty && seen.lastName.isEmpty && seen.publicName == owner.username)
        try await harness.update(owner, ["show_real_name"]) { $0.showRealName = true }
        let shown = try await harness.profiles.getProfile(.init(accountID: owner.id), options: viewer.options)
        #expect(shown.firstName == "Maya" && shown.lastName == "Reyes" && shown.publicName == "Maya Reyes")
        await harness.stop()
    }

    @Test func withoutAToken_everyMethodIsUnauthenticated() async throws {
        let harness = try await IdentityHarness.start()
        expectError(await rpcError { _ = try await harness.profiles.getMyProfile(options: CallOptions()) },
                    .unauthenticated, "MISSING_TOKEN")
        expectError(await rpcError { _ = try await harness.profiles.listProfiles(.init(), options: CallOptions()) },
                    .unauthenticated, "MISSING_TOKEN")
        await harness.stop()
    }

    // MARK: - Listing and verifying

    @Test func listProfiles_isForProfileReaders_pagesOldestFirst_andIncludesInactive() async throws {
        let harness = try await IdentityHarness.start()
        let before = try await Self.databaseNow(harness)
        var owners: [TestUser] = []
        for _ in 0..<3 { owners.append(try await harness.newUser("firstdate")) }
        try await harness.update(owners[1], ["active"]) { $0.active = false }
        let host = try await harness.newUser("firstdate", role: "host")
        let viewer = try await harness.newUser("firstdate")
        expectError(await rpcError { _ = try await harness.profiles.listProfiles(.init(), options: viewer.options) },
                    .permissionDenied, "ROLE_REQUIRED")

        var seen: [String] = []
        var token = PageCursor(microseconds: before, id: Self.zeroID).token
        var pages = 0
        repeat {
            let page = try await harness.profiles.listProfiles(.init(pageSize: 2, pageToken: token), options: host.options)
            #expect(page.profiles.count <= 2)
            seen += page.profiles.map(\.accountID)
            token = page.nextPageToken
            pages += 1
        } while !token.isEmpty && pages < 50
        let mine = seen.filter { id in owners.contains { $0.id == id } }
        #expect(mine == owners.map { $0.id }, "oldest first, the inactive one included")
        #expect(seen.contains(host.id) && seen.contains(viewer.id))

        let start = PageCursor(microseconds: before, id: Self.zeroID).token
        let active = try await harness.profiles.listProfiles(.init(pageSize: 200, pageToken: start, activeOnly: true),
                                                             options: host.options)
        #expect(active.profiles.contains { $0.accountID == owners[0].id })
        #expect(!active.profiles.contains { $0.accountID == owners[1].id })

        expectError(await rpcError { _ = try await harness.profiles.listProfiles(.init(pageToken: "garbage!"), options: host.options) },
                    .invalidArgument, "INVALID_PAGE_TOKEN")
        expectError(await rpcError { _ = try await harness.profiles.listProfiles(.init(pageSize: -1), options: host.options) },
                    .invalidArgument, "INVALID_PAGE_SIZE")
        // Another app's readers list their own app only.
        let eliteAdmin = try await harness.newUser("elite", role: "admin")
        let elite = try await harness.profiles.listProfiles(.init(pageSize: 200, pageToken: start), options: eliteAdmin.options)
        #expect(elite.profiles.allSatisfy { $0.app == "elite" })
        await harness.stop()
    }

    @Test func setVerified_isForAdmins_andEmitsProfileUpdated() async throws {
        let harness = try await IdentityHarness.start()
        let member = try await harness.newUser("elite")
        let admin = try await harness.newUser("elite", role: "admin")
        expectError(await rpcError { _ = try await harness.profiles.setVerified(.init(accountID: member.id, verified: true), options: member.options) },
                    .permissionDenied, "ADMIN_ONLY")
        let verified = try await harness.profiles.setVerified(.init(accountID: member.id, verified: true), options: admin.options)
        #expect(verified.verified && verified.accountID == member.id)
        #expect(try await harness.profiles.getMyProfile(options: member.options).verified)
        #expect(try await harness.eventCount("ProfileUpdated", aggregateID: member.id) == 1)
        // Again: nothing changes, no second event.
        _ = try await harness.profiles.setVerified(.init(accountID: member.id, verified: true), options: admin.options)
        #expect(try await harness.eventCount("ProfileUpdated", aggregateID: member.id) == 1)
        let otherApp = try await harness.newUser("momento")
        expectError(await rpcError { _ = try await harness.profiles.setVerified(.init(accountID: otherApp.id, verified: true), options: admin.options) },
                    .notFound, "USER_NOT_FOUND")
        await harness.stop()
    }

    @Test func deletingTheAccount_removesItsProfile() async throws {
        let harness = try await IdentityHarness.start()
        let user = try await harness.newUser("momento")
        try await harness.update(user, ["bio"]) { $0.bio = "bye" }
        let id = try #require(UUID(uuidString: user.id))
        let left = try await harness.pool.withConnection { connection in
            _ = try await connection.execute("DELETE FROM identity.accounts WHERE id = $1", [.uuid(id)])
            return try await connection.query("SELECT count(*) FROM identity.profiles WHERE account_id = $1",
                                              [.uuid(id)])[0].decode(0, as: Int.self)
        }
        #expect(left == 0)
        await harness.stop()
    }

    // MARK: - Helpers

    static let zeroID = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!

    /// The calendar day `years` years and `plusDays` days before today (UTC).
    static func date(yearsAgo years: Int, plusDays: Int = 0) -> Profiles.CalendarDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = calendar.date(byAdding: DateComponents(year: -years, day: plusDays), to: Date())!
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return .init(year: Int32(parts.year!), month: Int32(parts.month!), day: Int32(parts.day!))
    }

    /// The database's clock, in microseconds: accounts created after this sort after it.
    static func databaseNow(_ harness: IdentityHarness) async throws -> Int64 {
        try await harness.pool.withConnection { connection in
            try await connection.query("SELECT \(UnixMicroseconds.sql("now()"))")[0].decode(0, as: Int64.self)
        }
    }
}

/// Rules checked without the database.
@Suite struct ProfileRuleTests {
    @Test func birthDate_age_countsWholeYearsInUTC() throws {
        let born = BirthDate(verifiedYear: 2000, month: 2, day: 29)
        let formatter = ISO8601DateFormatter()
        #expect(born.age(on: try #require(formatter.date(from: "2018-02-28T23:59:59Z"))) == 17)
        #expect(born.age(on: try #require(formatter.date(from: "2018-03-01T00:00:00Z"))) == 18)
        #expect(born.age(on: try #require(formatter.date(from: "2020-02-29T00:00:00Z"))) == 20)
        #expect(born.isoText == "2000-02-29")
    }

    @Test func pageCursor_roundTrips_andRefusesForeignTokens() throws {
        let cursor = PageCursor(microseconds: 1_795_000_000_000_005, id: UUID())
        #expect(try PageCursor.parse(cursor.token) == cursor)
        #expect(try PageCursor.parse("") == nil)
        for token in ["%%%", "bm9wZQ", String(repeating: "A", count: 200)] {
            #expect(throws: PagingError.invalidPageToken) { try PageCursor.parse(token) }
        }
        #expect(try PageCursor.pageSize(0) == 50 && PageCursor.pageSize(500) == 200 && PageCursor.pageSize(7) == 7)
    }

    @Test func textRule_trims_unifiesLineEnds_andCountsCharactersNotBytes() throws {
        let rule = TextRule(field: "bio", maximumLength: 3, multiline: true)
        #expect(try rule.clean("  a\r\nb  ") == "a\nb")
        #expect(try rule.clean("a\rb") == "a\nb")
        #expect(try rule.clean("👍🏽é🇫🇷") == "👍🏽é🇫🇷")
        #expect(throws: InputError.tooLong(field: "bio", maximum: 3, reason: .fieldTooLong)) { try rule.clean("abcd") }
        #expect(throws: InputError.invalidText(field: "bio")) { try rule.clean("a\u{85}b") }
    }
}
