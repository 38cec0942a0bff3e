import Contracts
import GatewayClient
import GatewayClientHTTP2
import RPC
import Synchronization
import Testing

/// Every wrapper of Profiles, Safety, Membership, Discovery, GroupSessions, Messaging, Encounters, production's services,
/// Media's unary methods, ProfilePhotos and MomentoEvents against a server that is always
/// UNAVAILABLE: it calls its own RPC, is sent as many times as its idempotency allows (reads and
/// server-idempotent writes until the policy gives up, other writes once), and carries the
/// session's token exactly when the method needs one.
@Suite struct IdentityServicesMethodRulesTests {
    /// How one wrapper must behave.
    struct Rule: Sendable, CustomTestStringConvertible {
        enum Sending: Sendable { case retried, once }

        var path: String
        var sending: Sending
        var needsSession: Bool
        var call: @Sendable (GatewayClient) async throws -> Void

        var testDescription: String { path }
    }

    static let id = "00000000-0000-4000-8000-000000000002"

    static let rules: [Rule] = [
        Rule(path: "Profiles/GetMyProfile", sending: .retried, needsSession: true) { _ = try await $0.profiles.getMyProfile() },
        Rule(path: "Profiles/UpdateProfile", sending: .once, needsSession: true) {
            _ = try await $0.profiles.updateProfile(Profiles.ProfileFields(), mask: ["bio"])
        },
        Rule(path: "Profiles/GetProfile", sending: .retried, needsSession: true) { _ = try await $0.profiles.getProfile(accountID: id) },
        Rule(path: "Profiles/GetProfileByUsername", sending: .retried, needsSession: true) {
            _ = try await $0.profiles.getProfile(username: "maya")
        },
        Rule(path: "Profiles/ListProfiles", sending: .retried, needsSession: true) { _ = try await $0.profiles.listProfiles() },
        Rule(path: "Profiles/SetVerified", sending: .retried, needsSession: true) {
            _ = try await $0.profiles.setVerified(accountID: id, verified: true)
        },
        Rule(path: "Profiles/BecomeApplicant", sending: .retried, needsSession: true) { _ = try await $0.profiles.becomeApplicant() },
        Rule(path: "Profiles/SetRole", sending: .retried, needsSession: true) { _ = try await $0.profiles.setRole(accountID: id, role: "host") },

        Rule(path: "Safety/Block", sending: .retried, needsSession: true) { try await $0.safety.block(accountID: id) },
        Rule(path: "Safety/Unblock", sending: .retried, needsSession: true) { try await $0.safety.unblock(accountID: id) },
        Rule(path: "Safety/ListBlocks", sending: .retried, needsSession: true) { _ = try await $0.safety.listBlocks() },
        Rule(path: "Safety/Report", sending: .once, needsSession: true) { try await $0.safety.report(accountID: id, reason: .spam) },
        Rule(path: "Safety/ListReports", sending: .retried, needsSession: true) { _ = try await $0.safety.listReports() },
        Rule(path: "Safety/ReviewReport", sending: .once, needsSession: true) { _ = try await $0.safety.reviewReport(id: id) },
        Rule(path: "Safety/ResolveReport", sending: .once, needsSession: true) { _ = try await $0.safety.resolveReport(id: id) },

        Rule(path: "Membership/ListTiers", sending: .retried, needsSession: false) { _ = try await $0.membership.listTiers() },
        Rule(path: "Membership/GetMyEntitlements", sending: .retried, needsSession: true) {
            _ = try await $0.membership.getMyEntitlements()
        },
        Rule(path: "Membership/ApplyAppStoreTransaction", sending: .retried, needsSession: true) {
            _ = try await $0.membership.applyAppStoreTransaction("a.b.c")
        },
        Rule(path: "Membership/SetTier", sending: .retried, needsSession: true) {
            _ = try await $0.membership.setTier(accountID: id, tier: "plus")
        },
        Rule(path: "Membership/CreateReferralCode", sending: .once, needsSession: true) {
            _ = try await $0.membership.createReferralCode()
        },
        Rule(path: "Membership/ListMyReferralCodes", sending: .retried, needsSession: true) {
            _ = try await $0.membership.listMyReferralCodes()
        },
        Rule(path: "Membership/RedeemReferralCode", sending: .once, needsSession: true) {
            try await $0.membership.redeemReferralCode("EXT7K2")
        },
        Rule(path: "Membership/GetMyWaitlistPosition", sending: .retried, needsSession: true) {
            _ = try await $0.membership.getMyWaitlistPosition()
        },
        Rule(path: "Membership/ListWaitlist", sending: .retried, needsSession: true) { _ = try await $0.membership.listWaitlist() },
        Rule(path: "Membership/ApproveMember", sending: .once, needsSession: true) {
            try await $0.membership.approveMember(accountID: id)
        },
        Rule(path: "Membership/RejectMember", sending: .once, needsSession: true) {
            try await $0.membership.rejectMember(accountID: id, reason: "no")
        },
        Rule(path: "Membership/JoinWaitlist", sending: .retried, needsSession: false) {
            _ = try await $0.membership.joinWaitlist(email: "maya@example.com")
        },
        Rule(path: "Membership/GetWaitlistPosition", sending: .retried, needsSession: false) {
            _ = try await $0.membership.getWaitlistPosition(email: "maya@example.com", referralCode: "EXT7K2")
        },
        Rule(path: "Membership/GetWaitlistCount", sending: .retried, needsSession: true) {
            _ = try await $0.membership.getWaitlistCount()
        },

        Rule(path: "Discovery/GetFeed", sending: .retried, needsSession: true) { _ = try await $0.discovery.feed() },
        Rule(path: "Discovery/Swipe", sending: .retried, needsSession: true) { _ = try await $0.discovery.swipe(accountID: id, .like) },
        Rule(path: "Discovery/GetQuota", sending: .retried, needsSession: true) { _ = try await $0.discovery.quota() },
        Rule(path: "Discovery/ListMatches", sending: .retried, needsSession: true) { _ = try await $0.discovery.matches() },
        Rule(path: "Discovery/Unmatch", sending: .retried, needsSession: true) { try await $0.discovery.unmatch(matchID: id) },
        Rule(path: "Discovery/GetLikesReceived", sending: .retried, needsSession: true) { _ = try await $0.discovery.likesReceived() },
        Rule(path: "Discovery/GetTasteProfile", sending: .retried, needsSession: true) { _ = try await $0.discovery.tasteProfile() },
        Rule(path: "Discovery/GetSettings", sending: .retried, needsSession: true) { _ = try await $0.discovery.settings() },
        Rule(path: "Discovery/UpdateSettings", sending: .retried, needsSession: true) { _ = try await $0.discovery.setIncognito(true) },
        Rule(path: "Discovery/Boost", sending: .retried, needsSession: true) { _ = try await $0.discovery.boost() },
        Rule(path: "Discovery/ImportContacts", sending: .retried, needsSession: true) {
            try await $0.discovery.importContacts([ContactHash.email("maya@example.com")])
        },
        Rule(path: "Discovery/ImportInstagram", sending: .retried, needsSession: true) {
            try await $0.discovery.importInstagram(accessToken: "IGQ-token")
        },

        Rule(path: "GroupSessions/ListCategories", sending: .retried, needsSession: true) { _ = try await $0.groupSessions.categories() },
        Rule(path: "GroupSessions/CreateSession", sending: .once, needsSession: true) {
            _ = try await $0.groupSessions.create(categoryID: "cuisines")
        },
        Rule(path: "GroupSessions/JoinSession", sending: .retried, needsSession: true) { _ = try await $0.groupSessions.join(inviteCode: "ABC234") },
        Rule(path: "GroupSessions/GetSession", sending: .retried, needsSession: true) { _ = try await $0.groupSessions.session(id) },
        Rule(path: "GroupSessions/GetDeck", sending: .retried, needsSession: true) { _ = try await $0.groupSessions.deck(id) },
        Rule(path: "GroupSessions/LikeOption", sending: .retried, needsSession: true) {
            _ = try await $0.groupSessions.like(optionID: "cuisines-thai", in: id)
        },
        Rule(path: "GroupSessions/CloseSession", sending: .retried, needsSession: true) { _ = try await $0.groupSessions.close(id) },
        Rule(path: "GroupSessions/ListSessions", sending: .retried, needsSession: true) { _ = try await $0.groupSessions.list(.open) },

        Rule(path: "Casting/SaveApplication", sending: .retried, needsSession: true) { _ = try await $0.production.saveApplicationStep(.consent(.init(acknowledged: true))) },
        Rule(path: "Casting/SubmitApplication", sending: .retried, needsSession: true) { _ = try await $0.production.submitApplication() },
        Rule(path: "Casting/GetMyApplication", sending: .retried, needsSession: true) { _ = try await $0.production.myApplication() },
        Rule(path: "Casting/ListApplications", sending: .retried, needsSession: true) { _ = try await $0.production.applications() },
        Rule(path: "Casting/GetApplication", sending: .retried, needsSession: true) { _ = try await $0.production.application(id) },
        Rule(path: "Casting/SetApplicationStatus", sending: .retried, needsSession: true) { _ = try await $0.production.setApplicationStatus(id, to: .reviewing) },
        Rule(path: "Casting/AssignToEpisode", sending: .retried, needsSession: true) { _ = try await $0.production.assignToEpisode(applicationID: id, episodeID: id) },
        Rule(path: "Episodes/CreateSeason", sending: .once, needsSession: true) { _ = try await $0.production.createSeason(number: 1) },
        Rule(path: "Episodes/ListSeasons", sending: .retried, needsSession: true) { _ = try await $0.production.seasons() },
        Rule(path: "Episodes/CreateEpisode", sending: .once, needsSession: true) { _ = try await $0.production.createEpisode(seasonID: id, number: 1, title: "Pilot") },
        Rule(path: "Episodes/GetEpisode", sending: .retried, needsSession: true) { _ = try await $0.production.episode(id) },
        Rule(path: "Episodes/ListEpisodes", sending: .retried, needsSession: true) { _ = try await $0.production.episodes(seasonID: id) },
        Rule(path: "Episodes/AdvanceDeal", sending: .retried, needsSession: true) { _ = try await $0.production.advanceDeal(episodeID: id, to: .outreach) },
        Rule(path: "Episodes/AdvanceProduction", sending: .retried, needsSession: true) { _ = try await $0.production.advanceProduction(episodeID: id, to: .casting) },
        Rule(path: "Episodes/SetBehindTheGlass", sending: .retried, needsSession: true) { _ = try await $0.production.setBehindTheGlass(episodeID: id, .init(type: .dealStory, text: "comp meal")) },
        Rule(path: "Episodes/UpdateEpisode", sending: .retried, needsSession: true) { _ = try await $0.production.updateEpisode(episodeID: id, .init(), mask: ["title"]) },
        Rule(path: "Consent/GetCurrentConsentText", sending: .retried, needsSession: true) { _ = try await $0.production.currentConsentText() },
        Rule(path: "Consent/PublishConsentText", sending: .retried, needsSession: true) { _ = try await $0.production.publishConsentText("I agree") },
        Rule(path: "Consent/CaptureConsent", sending: .once, needsSession: true) { _ = try await $0.production.captureConsent(.init()) },
        Rule(path: "Consent/RevokeConsent", sending: .once, needsSession: true) { _ = try await $0.production.revokeConsent(episodeID: id, participantAccountID: id) },
        Rule(path: "Consent/ListConsentRecords", sending: .retried, needsSession: true) { _ = try await $0.production.consentRecords(episodeID: id) },
        Rule(path: "Consent/ListMyConsentRecords", sending: .retried, needsSession: true) { _ = try await $0.production.myConsentRecords() },
        Rule(path: "Ledger/AddLedgerEntry", sending: .once, needsSession: true) { _ = try await $0.production.addLedgerEntry(.init()) },
        Rule(path: "Ledger/ListLedgerEntries", sending: .retried, needsSession: true) { _ = try await $0.production.ledgerEntries() },
        Rule(path: "Ledger/GetProfitAndLoss", sending: .retried, needsSession: true) { _ = try await $0.production.profitAndLoss(seasonID: id) },
        Rule(path: "Ledger/GetBreakevenProjection", sending: .retried, needsSession: true) { _ = try await $0.production.breakevenProjection(.init()) },
        Rule(path: "Ledger/GetSponsorReport", sending: .retried, needsSession: true) { _ = try await $0.production.sponsorReport(seasonID: id, currency: "USD") },
        Rule(path: "Studio/ListRestaurants", sending: .retried, needsSession: true) { _ = try await $0.production.restaurants() },
        Rule(path: "Studio/ScheduleShoot", sending: .retried, needsSession: true) { _ = try await $0.production.scheduleShoot(episodeID: id, restaurantID: "hiden", startsAt: Timestamp(seconds: 1), durationMinutes: 60) },
        Rule(path: "Studio/GetCalendar", sending: .retried, needsSession: true) { _ = try await $0.production.calendar(from: Timestamp(seconds: 1), to: Timestamp(seconds: 2)) },
        Rule(path: "Studio/GetChecklist", sending: .retried, needsSession: true) { _ = try await $0.production.checklist(episodeID: id) },
        Rule(path: "Studio/UpdateChecklist", sending: .retried, needsSession: true) { _ = try await $0.production.updateChecklist(episodeID: id, equipmentPacked: true) },
        Rule(path: "Studio/AddWardrobeItem", sending: .once, needsSession: true) { _ = try await $0.production.addWardrobeItem(.init()) },
        Rule(path: "Studio/ListWardrobe", sending: .retried, needsSession: true) { _ = try await $0.production.wardrobe() },
        Rule(path: "Studio/LogOutfit", sending: .retried, needsSession: true) { _ = try await $0.production.logOutfit(episodeID: id, itemID: id, wornBy: id) },
        Rule(path: "Studio/ListOutfits", sending: .retried, needsSession: true) { _ = try await $0.production.outfits(episodeID: id) },
        Rule(path: "Dates/ProposeDate", sending: .once, needsSession: true) { _ = try await $0.production.proposeDate(matchID: id, restaurantID: "hiden", at: Timestamp(seconds: 1)) },
        Rule(path: "Dates/ConfirmDate", sending: .retried, needsSession: true) { _ = try await $0.production.confirmDate(id) },
        Rule(path: "Dates/CompleteDate", sending: .retried, needsSession: true) { _ = try await $0.production.completeDate(id) },
        Rule(path: "Dates/CancelDate", sending: .retried, needsSession: true) { _ = try await $0.production.cancelDate(id) },
        Rule(path: "Dates/ReviewDate", sending: .once, needsSession: true) { _ = try await $0.production.reviewDate(id, vibeTags: ["fun"], wouldMeetAgain: true) },
        Rule(path: "Dates/ListDates", sending: .retried, needsSession: true) { _ = try await $0.production.dates() },
        Rule(path: "Content/GenerateScript", sending: .retried, needsSession: true) { _ = try await $0.production.generateScript(episodeID: id, platform: .tiktok) },
        Rule(path: "Content/UpdateScript", sending: .retried, needsSession: true) { _ = try await $0.production.updateScript(episodeID: id, platform: .tiktok, .init(), mask: ["hook"]) },
        Rule(path: "Content/ListScripts", sending: .retried, needsSession: true) { _ = try await $0.production.scripts(episodeID: id) },
        Rule(path: "Points/GetBalance", sending: .retried, needsSession: true) { _ = try await $0.points.balance() },
        Rule(path: "Points/ListEntries", sending: .retried, needsSession: true) { _ = try await $0.points.entries() },

        Rule(path: "Identity/SignUpWithEmail", sending: .once, needsSession: false) {
            _ = try await $0.identity.signUpWithEmail("maya@example.com", password: "correct horse battery", referralCode: "EXT7K2")
        },

        Rule(path: "Messaging/ListConversations", sending: .retried, needsSession: true) { _ = try await $0.messaging.conversations() },
        Rule(path: "Messaging/GetConversation", sending: .retried, needsSession: true) { _ = try await $0.messaging.conversation(id) },
        Rule(path: "Messaging/SendMessage", sending: .retried, needsSession: true) {
            _ = try await $0.messaging.send(text: "hi", in: id)
        },
        Rule(path: "Messaging/ListMessages", sending: .retried, needsSession: true) { _ = try await $0.messaging.messages(in: id) },
        Rule(path: "Messaging/MarkRead", sending: .retried, needsSession: true) { try await $0.messaging.markRead(in: id) },
        Rule(path: "Messaging/GetUnreadCount", sending: .retried, needsSession: true) { _ = try await $0.messaging.unreadCount() },
        Rule(path: "Media/CreateUpload", sending: .once, needsSession: true) {
            _ = try await $0.media.upload([1, 2, 3], kind: .photo, contentType: "image/png")
        },
        Rule(path: "Media/GetUpload", sending: .retried, needsSession: true) { _ = try await $0.media.resumeUpload(id, bytes: [1]) },
        Rule(path: "Media/GetBlob", sending: .retried, needsSession: true) { _ = try await $0.media.blob(id) },
        Rule(path: "Media/GetDownloadURL", sending: .retried, needsSession: true) { _ = try await $0.media.downloadURL(id) },

        Rule(path: "MomentoEvents/CreateEvent", sending: .once, needsSession: true) { _ = try await $0.momento.create(.init()) },
        Rule(path: "MomentoEvents/PreviewEvent", sending: .once, needsSession: false) { _ = try await $0.momento.preview(joinCode: "ABC234") },
        Rule(path: "MomentoEvents/JoinEvent", sending: .retried, needsSession: true) { _ = try await $0.momento.join(joinCode: "ABC234") },
        Rule(path: "MomentoEvents/GetEvent", sending: .retried, needsSession: true) { _ = try await $0.momento.event(id) },
        Rule(path: "MomentoEvents/AddEventPhoto", sending: .retried, needsSession: true) {
            _ = try await $0.momento.addPhoto(blobID: id, to: id)
        },
        Rule(path: "MomentoEvents/ListEventPhotos", sending: .retried, needsSession: true) { _ = try await $0.momento.photos(of: id) },
        Rule(path: "MomentoEvents/DeleteEventPhoto", sending: .once, needsSession: true) { try await $0.momento.deletePhoto(id, of: id) },
        Rule(path: "MomentoEvents/SetMemberRole", sending: .retried, needsSession: true) {
            _ = try await $0.momento.setRole(.admin, of: id, in: id)
        },
        Rule(path: "MomentoEvents/GetJoinCodeStats", sending: .retried, needsSession: true) { _ = try await $0.momento.joinCodeStats(id) },

        Rule(path: "ProfilePhotos/GetPhotoSet", sending: .retried, needsSession: true) { _ = try await $0.profilePhotos.photoSet() },
        Rule(path: "ProfilePhotos/AddPhoto", sending: .retried, needsSession: true) { _ = try await $0.profilePhotos.add(id) },
        Rule(path: "ProfilePhotos/RemovePhoto", sending: .retried, needsSession: true) { _ = try await $0.profilePhotos.remove(id) },
        Rule(path: "ProfilePhotos/ReorderPhotos", sending: .retried, needsSession: true) { _ = try await $0.profilePhotos.reorder([id]) },

        Rule(path: "Encounters/StartEncounter", sending: .once, needsSession: true) { _ = try await $0.encounters.start() },
        Rule(path: "Encounters/JoinEncounter", sending: .retried, needsSession: true) { _ = try await $0.encounters.join(id) },
        Rule(path: "Encounters/GetEncounter", sending: .retried, needsSession: true) { _ = try await $0.encounters.encounter(id) },
        Rule(path: "Encounters/ReportMessages", sending: .retried, needsSession: true) { _ = try await $0.encounters.reportMessages(3, in: id) },
        Rule(path: "Encounters/ProposeConvergence", sending: .once, needsSession: true) { _ = try await $0.encounters.proposeConvergence(id) },
        Rule(path: "Encounters/AnswerConvergence", sending: .retried, needsSession: true) { _ = try await $0.encounters.answerConvergence(id, accept: true) },
        Rule(path: "Encounters/DescribeMeetup", sending: .retried, needsSession: true) { _ = try await $0.encounters.describeMeetup("by the fountain", in: id) },
        Rule(path: "Encounters/ConfirmArrival", sending: .retried, needsSession: true) { _ = try await $0.encounters.confirmArrival(id) },
        Rule(path: "Encounters/SubmitHandshakeCode", sending: .once, needsSession: true) { _ = try await $0.encounters.submitHandshakeCode("4821", in: id) },
        Rule(path: "Encounters/SubmitArtifact", sending: .once, needsSession: true) { _ = try await $0.encounters.submitArtifact("we both noticed", in: id) },
        Rule(path: "Encounters/SubmitResonance", sending: .once, needsSession: true) { _ = try await $0.encounters.submitResonance(90, in: id) },
        Rule(path: "Push/GetPushPreferences", sending: .retried, needsSession: true) { _ = try await $0.push.preferences() },
        Rule(path: "Push/SetPushPreferences", sending: .retried, needsSession: true) {
            _ = try await $0.push.setPreferences([.message: false])
        },
    ]

    @Test(arguments: rules)
    func aWrapper_callsItsMethod_asOftenAsItsIdempotencyAllows_withTheTokenItNeeds(_ rule: Rule) async throws {
        let server = try UnavailableServer()
        let port = try server.start()
        // A session only where one is needed: the public methods must work signed out.
        let store = rule.needsSession ? InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
            : InMemoryTokenStore()
        let client = try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: port, security: .plaintext,
                                                                           app: "elite", retryPolicy: .fast),
                                       tokenStore: store)
        let error = await gatewayError { try await rule.call(client) }
        client.close()
        await server.stop()

        #expect(error?.code == .unavailable)
        let calls = server.calls
        #expect(Set(calls.map(\.path)) == [rule.path])
        #expect(calls.count == (rule.sending == .retried ? RetryPolicy.fast.maxAttempts : 1))
        #expect(calls.allSatisfy { $0.bearer == (rule.needsSession ? "a1" : nil) })
    }
}

/// A live server with every method of Profiles, Safety and Membership (and Identity's
/// SignUpWithEmail) that answers each UNAVAILABLE, recording the path and bearer token of every call.
final class UnavailableServer: Sendable {
    struct Call: Sendable {
        /// `Service/Method`.
        var path: String
        var bearer: String?
    }

    private final class Recorder: Sendable {
        let log = Mutex<[Call]>([])
    }

    private struct Service: RPCService {
        var serviceName: String
        var methods: [String]
        var recorder: Recorder

        func register(in router: inout RPCRouter) {
            for method in methods {
                let path = "\(serviceName.split(separator: ".").last ?? "")/\(method)"
                // Any request decodes as an empty message (unknown fields are skipped); no
                // response is ever sent.
                router.unary(serviceName, method) { [recorder] (_: Profiles.GetMyProfileRequest, context) -> Profiles.GetMyProfileRequest in
                    let bearer = context.requestMetadata[string: "authorization"].map { String($0.dropFirst("Bearer ".count)) }
                    recorder.log.withLock { $0.append(Call(path: path, bearer: bearer)) }
                    throw RPCError(code: .unavailable, message: "try again")
                }
            }
        }
    }

    private static let methods: [String: [String]] = [
        ProfilesClient.serviceName: ["GetMyProfile", "UpdateProfile", "GetProfile", "GetProfileByUsername", "ListProfiles",
                               "SetVerified", "BecomeApplicant", "SetRole"],
        SafetyClient.serviceName: ["Block", "Unblock", "ListBlocks", "Report", "ListReports", "ReviewReport", "ResolveReport"],
        MembershipClient.serviceName: ["ListTiers", "GetMyEntitlements", "ApplyAppStoreTransaction", "SetTier", "CreateReferralCode",
                                 "ListMyReferralCodes", "RedeemReferralCode", "GetMyWaitlistPosition", "ListWaitlist",
                                 "ApproveMember", "RejectMember", "JoinWaitlist", "GetWaitlistPosition", "GetWaitlistCount"],
        IdentityClient.serviceName: ["SignUpWithEmail"],
        DiscoveryClient.serviceName: ["GetFeed", "Swipe", "GetQuota", "ListMatches", "Unmatch", "GetLikesReceived",
                                      "GetTasteProfile", "GetSettings", "UpdateSettings", "Boost", "ImportContacts",
                                      "ImportInstagram"],
        CastingClient.serviceName: ["SaveApplication", "SubmitApplication", "GetMyApplication", "ListApplications", "GetApplication", "SetApplicationStatus", "AssignToEpisode"],
        EpisodesClient.serviceName: ["CreateSeason", "ListSeasons", "CreateEpisode", "GetEpisode", "ListEpisodes", "AdvanceDeal", "AdvanceProduction", "SetBehindTheGlass", "UpdateEpisode"],
        ConsentClient.serviceName: ["GetCurrentConsentText", "PublishConsentText", "CaptureConsent", "RevokeConsent", "ListConsentRecords", "ListMyConsentRecords"],
        LedgerClient.serviceName: ["AddLedgerEntry", "ListLedgerEntries", "GetProfitAndLoss", "GetBreakevenProjection", "GetSponsorReport"],
        StudioClient.serviceName: ["ListRestaurants", "ScheduleShoot", "GetCalendar", "GetChecklist", "UpdateChecklist", "AddWardrobeItem", "ListWardrobe", "LogOutfit", "ListOutfits"],
        DatesClient.serviceName: ["ProposeDate", "ConfirmDate", "CompleteDate", "CancelDate", "ReviewDate", "ListDates"],
        ContentClient.serviceName: ["GenerateScript", "UpdateScript", "ListScripts"],
        PointsClient.serviceName: ["GetBalance", "ListEntries"],
        MediaClient.serviceName: ["CreateUpload", "GetUpload", "GetBlob", "GetDownloadURL"],
        ProfilePhotosClient.serviceName: ["GetPhotoSet", "AddPhoto", "RemovePhoto", "ReorderPhotos"],
        MomentoEventsClient.serviceName: ["CreateEvent", "PreviewEvent", "JoinEvent", "GetEvent", "AddEventPhoto", "ListEventPhotos",
                                          "DeleteEventPhoto", "SetMemberRole", "GetJoinCodeStats"],
        GroupSessionsClient.serviceName: ["ListCategories", "CreateSession", "JoinSession", "GetSession", "GetDeck", "LikeOption",
                                          "CloseSession", "ListSessions"],
        MessagingClient.serviceName: ["ListConversations", "GetConversation", "SendMessage", "ListMessages", "MarkRead",
                                      "GetUnreadCount"],
        EncountersClient.serviceName: ["StartEncounter", "JoinEncounter", "GetEncounter", "ReportMessages", "ProposeConvergence",
                                       "AnswerConvergence", "DescribeMeetup", "ConfirmArrival", "SubmitHandshakeCode",
                                       "SubmitArtifact", "SubmitResonance"],
        PushClient.serviceName: ["GetPushPreferences", "SetPushPreferences"],
    ]

    private let recorder: Recorder
    private let server: RPCServer

    init() throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let recorder = Recorder()
        self.recorder = recorder
        let services = Self.methods.map { Service(serviceName: $0.key, methods: $0.value, recorder: recorder) }
        server = try RPCServer(configuration: configuration, services: services)
    }

    /// Every call so far, in arrival order.
    var calls: [Call] { recorder.log.withLock { $0 } }

    /// Starts listening on 127.0.0.1; returns the port.
    func start() throws -> Int { try server.start() }

    func stop() async { await server.shutdown(gracePeriod: .milliseconds(200)) }
}
