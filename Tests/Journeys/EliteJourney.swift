import Contracts
import Foundation
import GatewayClient
import RPC
import Synchronization
import TestSupport

/// ÉLITE: a member's referral lets a newcomer in; she builds a profile with photos, meets a
/// ranked feed, likes until her tier's daily quota refuses her, matches, opens the chat with its
/// icebreakers, chats with read receipts, then reports her match, which the moderator works
/// through the queue. Crosses identity, media, discovery, messaging and push.
package struct EliteJourney {
    let context: JourneyContext

    package init(context: JourneyContext) { self.context = context }

    /// A signed-in member of this journey.
    struct Member {
        let client: GatewayClient
        let account: Identity.Account
        var id: String { account.id }
    }

    package func run() async throws {
        let clients = Clients()
        defer { clients.close() }
        // Every member of this journey lives at one random spot: the feed's 50 km radius keeps
        // everyone else's members (other journeys, earlier runs) out of it.
        let spot = Profiles.GeoPoint(latitude: Double.random(in: -60...60), longitude: Double.random(in: -179...179))
        let moderator = try await makeModerator(clients)
        let (alice, aliceToken) = try await referralSignUp(invitedBy: moderator, clients)
        // Tags of this run only, so that nobody else's members share them.
        let run = UUID().uuidString.prefix(8).lowercased()
        let (jazz, sailing) = ("jazz-\(run)", "sailing-\(run)")
        let photoIDs = try await profileWithPhotos(alice, tags: [jazz, sailing, "wine"], at: spot)
        let others = try await nearbyMembers(tags: [[jazz, sailing], [jazz], [], [], [], []], at: spot, admittedBy: moderator, clients)
        try await rankedFeed(alice, others: others, photoIDs: photoIDs)
        let matchID = try await likesUntilTheQuota(alice, others: others, aliceToken: aliceToken)
        try await chatWithReceipts(alice, others[0], matchID: matchID, moderator: moderator, aliceToken: aliceToken)
    }

    /// The moderator, an admin made by an operator: an active member with codes to give.
    private func makeModerator(_ clients: Clients) async throws -> Member {
        let moderator = try context.client("elite", in: clients)
        let account = try await moderator.identity.signUpWithEmail(JourneyContext.email("elite-mod"), password: JourneyContext.password)
        try await context.stack.grantRole("admin", to: account.id, app: "elite")
        _ = try await moderator.identity.refreshSession()
        return Member(client: moderator, account: account)
    }

    /// Referral sign-up: the code lets her in at once; it cannot be used twice.
    private func referralSignUp(invitedBy moderator: Member, _ clients: Clients) async throws -> (Member, String) {
        let code = try await moderator.client.membership.createReferralCode().code
        let alice = try context.client("elite", in: clients)
        let account = try await alice.identity.signUpWithEmail(JourneyContext.email("elite-alice"), password: JourneyContext.password,
                                                               referralCode: code)
        try check(account.membershipStatus == "active", "a referred member starts active, not \(account.membershipStatus)")
        let late = try context.client("elite", in: clients)
        try await refused(.failedPrecondition, "REFERRAL_CODE_USED", "a spent referral code") {
            _ = try await late.identity.signUpWithEmail(JourneyContext.email("elite-late"), password: JourneyContext.password,
                                                        referralCode: code)
        }
        let token = JourneyContext.deviceToken()
        _ = try await alice.devices.registerPushToken(token, platform: .apns, environment: .production, deviceID: "alice-phone")
        return (Member(client: alice, account: account), token)
    }

    /// Her profile with two photos.
    private func profileWithPhotos(_ alice: Member, tags: [String], at spot: Profiles.GeoPoint) async throws -> [String] {
        var photoIDs: [String] = []
        for index in 0..<2 {
            let png = RealPNG.make(width: 320 + index, height: 240, seed: Int.random(in: 0..<Int.max))
            let blob = try await alice.client.media.upload(png, kind: .photo, contentType: "image/png")
            photoIDs = try await alice.client.profilePhotos.add(blob.blobID).photos.map(\.blobID)
        }
        try check(photoIDs.count == 2, "her photo set holds both photos: \(photoIDs)")
        try await saveProfile(alice.client, name: "Alice", tags: tags, at: spot, photoIDs: photoIDs)
        return photoIDs
    }

    /// Members nearby with `tags` each; the first (Ben) shares two of her tags, the second one.
    /// Each signed up without a code, so waited until the committee (the moderator) admitted
    /// them: nobody uses ÉLITE before that.
    private func nearbyMembers(tags: [[String]], at spot: Profiles.GeoPoint, admittedBy moderator: Member,
                               _ clients: Clients) async throws -> [Member] {
        var others: [Member] = []
        for (index, tags) in tags.enumerated() {
            let client = try context.client("elite", in: clients)
            let account = try await client.identity.signUpWithEmail(JourneyContext.email("elite-m\(index)"),
                                                                    password: JourneyContext.password)
            _ = try await moderator.client.membership.approveMember(accountID: account.id)
            _ = try await client.identity.refreshSession()
            try await saveProfile(client, name: "Member \(index)", tags: tags, at: spot, photoIDs: [])
            others.append(Member(client: client, account: account))
        }
        return others
    }

    /// Ben likes her; her ranked feed holds all six, Ben first (two shared tags and his like),
    /// then the one with one shared tag before those with none; Ben sees her photos in order
    /// with their thumbnails. (Anyone else's member within 50 km shares no tag of this run and
    /// never outranks those two.)
    private func rankedFeed(_ alice: Member, others: [Member], photoIDs: [String]) async throws {
        let ben = others[0]
        _ = try await context.retrying(while: "USER_NOT_FOUND") { try await ben.client.discovery.swipe(accountID: alice.id, .like) }
        // (Discovery learns of profiles from identity's events, so the feed fills in.)
        let nearby = Set(others.map(\.id))
        let feed = try await context.eventually("her feed to hold the six nearby members", {
            try await alice.client.discovery.feed(pageSize: 50).cards
        }) { nearby.isSubset(of: $0.map(\.accountID)) }
        let order = feed.map(\.accountID).filter(nearby.contains)
        try check(feed[0].accountID == ben.id && feed[0].sharedTags.count == 2,
                  "Ben ranks first with both shared tags: \(feed.map { ($0.publicName, $0.sharedTags) })")
        try check(order[1] == others[1].id && feed.first { $0.accountID == others[1].id }?.sharedTags.count == 1,
                  "the member with one shared tag ranks next")
        let benSees = try await ben.client.profilePhotos.photoSet(of: alice.id)
        try check(benSees.photos.map(\.blobID) == photoIDs && benSees.photos.allSatisfy { $0.thumbnails.count == 2 },
                  "another member sees her photos in order with two thumbnails each")
    }

    /// Her like of Ben is the match; four more likes; the sixth is refused by the free tier's
    /// quota, saying when it resets. Returns the match.
    private func likesUntilTheQuota(_ alice: Member, others: [Member], aliceToken: String) async throws -> String {
        guard let match = try await alice.client.discovery.swipe(accountID: others[0].id, .like).match else {
            throw JourneyFailure("liking Ben back made no match")
        }
        for other in others[1...4] { _ = try await alice.client.discovery.swipe(accountID: other.id, .like) }
        let quota = try await refused(.resourceExhausted, "QUOTA_EXCEEDED", "a sixth like on the free tier") {
            _ = try await alice.client.discovery.swipe(accountID: others[5].id, .like)
        }
        let resetsAt = Int64(quota.details["resets_at"] ?? "") ?? 0
        try check(resetsAt % 86_400 == 0 && resetsAt > Int64(Date().timeIntervalSince1970),
                  "the refusal says when the quota resets (the next UTC midnight): \(resetsAt)")
        let left = try await alice.client.discovery.quota().likesRemaining
        try check(left == 0, "no likes left today, not \(left)")
        try await context.push(to: aliceToken, category: "match")
        return match.matchID
    }

    /// The chat opens with three icebreakers (both like Cuban food); her message arrives live on
    /// Ben's stream; her plus tier shows her that he read it; his reply is pushed to her. Then
    /// she reports and blocks him: the chat closes, and the moderator works the report.
    private func chatWithReceipts(_ alice: Member, _ ben: Member, matchID: String, moderator: Member,
                                  aliceToken: String) async throws {
        let opened = try await context.retrying(while: "CONVERSATION_NOT_FOUND") { try await ben.client.messaging.conversation(matchID) }
        try check(opened.icebreakers.count == 3 && opened.otherAccountID == alice.id,
                  "the new conversation shows three icebreakers: \(opened.icebreakers)")
        _ = try await moderator.client.membership.setTier(accountID: alice.id, tier: "plus")
        _ = try await alice.client.identity.refreshSession()
        let benInbox = Inbox(ben.client)
        defer { benInbox.stop() }
        try await benInbox.first("Ben's stream is ready", within: context.patience) { if case .ready? = $0.event { true } else { false } }
        let hello = try await alice.client.messaging.send(text: opened.icebreakers[0], in: matchID).message ?? Messaging.Message()
        try await benInbox.first("Alice's message live on Ben's stream", within: context.patience) {
            if case .message(let received)? = $0.event { received.message?.messageID == hello.messageID } else { false }
        }
        let after = try await ben.client.messaging.conversation(matchID)
        try check(after.icebreakers.isEmpty, "icebreakers go once the chat started")
        try await ben.client.messaging.markRead(in: matchID)
        _ = try await context.eventually("Alice sees her message read", {
            try await alice.client.messaging.messages(in: matchID).messages.first { $0.messageID == hello.messageID }?.read ?? false
        }) { $0 }
        _ = try await ben.client.messaging.send(text: "Jazz on Friday?", in: matchID)
        try await context.push(to: aliceToken, category: "message")
        try await reportAndModeration(alice, ben, matchID: matchID, benInbox: benInbox, moderator: moderator)
    }

    /// She reports Ben and blocks him: his chat closes and he can no longer write; a member is
    /// refused the queue; the moderator finds, reviews and resolves the report.
    private func reportAndModeration(_ alice: Member, _ ben: Member, matchID: String, benInbox: Inbox,
                                     moderator: Member) async throws {
        let report = try await alice.client.safety.report(accountID: ben.id, reason: .harassment, details: "Rude after the match.",
                                                          alsoBlock: true)
        try check(report.status == .pending, "her report waits in the queue")
        try await benInbox.first("Ben's chat closes", within: context.patience) {
            $0.event == .conversationClosed(.init(conversationID: matchID, reason: .blocked))
        }
        try await refused(.failedPrecondition, "CONVERSATION_CLOSED", "a message after the block") {
            _ = try await ben.client.messaging.send(text: "Hello?", in: matchID)
        }
        try await refused(.permissionDenied, "ADMIN_ONLY", "the queue to a member") { _ = try await alice.client.safety.listReports() }
        let queued = try await moderator.client.safety.listReports(status: .pending, reportedID: ben.id)
        try check(queued.reports.map(\.id) == [report.id], "the moderator finds the report in the pending queue")
        _ = try await moderator.client.safety.reviewReport(id: report.id, note: "Messages checked.")
        let resolved = try await moderator.client.safety.resolveReport(id: report.id, note: "Warned.")
        try check(resolved.status == .resolved && resolved.resolverID == moderator.id, "the report is resolved by the moderator")
        try await refused(.notFound, "USER_NOT_FOUND", "Ben's profile after her block") {
            _ = try await alice.client.profiles.getProfile(accountID: ben.id)
        }
    }

    /// Saves an active profile at `spot` with `tags`, Cuban food (for icebreakers) and `photoIDs`.
    private func saveProfile(_ client: GatewayClient, name: String, tags: [String], at spot: Profiles.GeoPoint,
                             photoIDs: [String]) async throws {
        var fields = Profiles.ProfileFields()
        fields.displayName = name
        fields.bio = "Hello from \(name)"
        fields.tags = tags
        fields.preferredCuisines = ["Cuban"]
        fields.location = spot
        fields.photoIDs = photoIDs
        fields.active = true
        _ = try await client.profiles.updateProfile(fields, mask: ["display_name", "bio", "tags", "preferred_cuisines", "location",
                                                                   "photo_ids", "active"])
    }
}
