import Contracts
import Foundation
import GatewayClient
import Journeys
import Postgres
import RPC
import TestSupport
import Testing

/// The deletion proof: one person (one email, an account in each of the five apps) leaves data
/// in every service through the gateway client as a user would; she deletes every account; once
/// every service has applied identity's AccountDeleted, no row of any table of the five schemas
/// holds her ids, her email or a text she wrote, except where a table keeps something by design
/// (`allowances`), and her photos' bytes are gone from media's store. The members she met keep
/// their own data and see what the contracts promise.
@Suite(.journeyStack(instances: 1), .serialized, .timeLimit(.minutes(2)))
struct EndToEndDeletionProofTests {
    typealias Trace = PersonalDataScan.Trace

    /// Tables that keep a trace of a deleted member by design, the kinds of trace they may keep,
    /// and why. Nothing else may: no email, name, bio or message text anywhere.
    static let allowances: [String: (kinds: Set<Trace.Kind>, reason: String)] = [
        "identity.outbox": ([.accountID], """
            event history the other services follow from their cursors: AccountDeleted and SessionsRevoked \
            must name the deleted id for them to purge and refuse its tokens
            """),
        "discovery.outbox": ([.accountID], "event history: MatchEnded by the deletion names the pair for messaging and production"),
        "messaging.outbox": ([.accountID], "event history: events of the ended conversation name its members by id"),
        "media.outbox": ([.accountID], "event history: Momento events name their members by id"),
        "production.outbox": ([.accountID], "event history: ApplicationSubmitted names the applicant by id"),
    ]

    @Test func deletingEveryAccount_leavesNoRowOfTheMember_inAnySchema_norHerPhotosBytes() async throws {
        let stack = try #require(JourneyStackTrait.stack)
        let context = JourneyContext(stack: stack, patience: .seconds(15))
        let clients = Clients()
        defer { clients.close() }
        let admin = try await TestDatabase.makeAdminPool(poolSize: 1)
        defer { admin.close() }
        let person = Person.distinctive("deleted")
        let world = World(context: context, clients: clients, person: person)

        let elite = try await world.elite()
        let swivo = try await world.swivo()
        let accounts = [elite.dana, try await world.momento(), swivo.dana, try await world.firstDate(), try await world.unseen()]
        let ids = accounts.map(\.id)
        let traces = ids.map { Trace(kind: .accountID, value: $0) } + [Trace(kind: .email, value: person.email)]
            + person.texts.map { Trace(kind: .text, value: $0) }

        // Before: every schema holds her, or the scan proves nothing.
        let before = try await PersonalDataScan.run(for: traces, on: admin)
        #expect(before.tables.count >= 60, "every table of the five schemas is scanned: \(before.tables.count)")
        let heldBefore = Set(before.findings.map { String($0.table.prefix { $0 != "." }) })
        #expect(heldBefore == Set(PersonalDataScan.schemas), "she has rows in every schema before the deletion: \(heldBefore)")
        let seen = Set(before.findings.flatMap(\.traces))
        #expect(seen == Set(traces), "the scan finds each trace before the deletion; not: \(Set(traces).subtracting(seen))")
        let files = try await blobFiles(of: ids, on: admin, storage: stack.mediaStorage)
        #expect(files.count >= 3 && files.allSatisfy { FileManager.default.fileExists(atPath: $0) },
                "her photos (and renditions) are on disk: \(files.count)")

        let benInbox = Inbox(elite.ben)
        defer { benInbox.stop() }
        try await benInbox.first("Ben's stream is ready", within: context.patience) { if case .ready? = $0.event { true } else { false } }
        for client in accounts.map(\.client) { try await client.identity.deleteAccount() }
        try await settled(ids: ids, matchID: elite.matchID, on: admin, context: context)

        // After: nothing of her but what a table keeps by design.
        let after = try await PersonalDataScan.run(for: traces, on: admin)
        for (table, findings) in Dictionary(grouping: after.findings, by: \.table).sorted(by: { $0.key < $1.key }) {
            let allowed = Self.allowances[table]?.kinds ?? []
            let leftovers = findings.filter { !$0.traces.allSatisfy { allowed.contains($0.kind) } }
            #expect(leftovers.isEmpty, "\(table) keeps the deleted member: \(leftovers)")
        }
        let kept = files.filter { FileManager.default.fileExists(atPath: $0) }
        #expect(kept.isEmpty, "her photos' bytes are gone from media's store: \(kept)")

        // The members she met keep their own data and see what the contracts say.
        try await benInbox.first("Ben is told the chat closed with the deletion", within: context.patience) {
            $0.event == .conversationClosed(.init(conversationID: elite.matchID, reason: .deleted))
        }
        let conversation = await gatewayError { _ = try await elite.ben.messaging.conversation(elite.matchID) }
        #expect(conversation?.code == .notFound && conversation?.reason == "CONVERSATION_NOT_FOUND",
                "a deleted member's conversations go with her: \(String(describing: conversation))")
        #expect(!(try await elite.ben.discovery.matches().matches.contains { $0.matchID == elite.matchID }),
                "the match ended with the deletion")
        #expect(try await elite.ben.identity.getAccount().id == elite.benID, "Ben's account is untouched")
        let session = try await swivo.friend.groupSessions.session(swivo.sessionID)
        #expect(session.creatorID == swivo.friendID, "her Swivo session passes to the friend who joined it")
        let benScan = try await PersonalDataScan.run(for: [Trace(kind: .accountID, value: elite.benID)], on: admin)
        let benTables = Set(benScan.findings.map(\.table))
        #expect(benTables.isSuperset(of: ["identity.accounts", "identity.profiles", "discovery.profiles"]),
                "Ben's own rows remain: \(benTables.sorted())")
    }

    /// Waits (bounded) until every follower of identity applied the AccountDeleted events and
    /// the followers of discovery the MatchEnded its purge made.
    func settled(ids: [String], matchID: String, on admin: PostgresPool, context: JourneyContext) async throws {
        let deletions: Int64 = try await admin.withConnection { connection in
            try await connection.query("""
                SELECT coalesce(max(cursor), 0) FROM identity.outbox WHERE type = 'AccountDeleted' AND aggregate_id = ANY($1)
                """, [.textArray(ids)])[0].decode(0)
        }
        #expect(deletions > 0, "identity published AccountDeleted")
        try await caughtUp(source: "identity", followers: ["discovery", "messaging", "production", "media"], to: deletions,
                           on: admin, context: context)
        let ended: Int64 = try await admin.withConnection { connection in
            try await connection.query("""
                SELECT coalesce(max(cursor), 0) FROM discovery.outbox WHERE type = 'MatchEnded' AND aggregate_id = $1
                """, [.text(matchID)])[0].decode(0)
        }
        #expect(ended > 0, "discovery ended the match")
        try await caughtUp(source: "discovery", followers: ["messaging", "production"], to: ended, on: admin, context: context)
    }

    private func caughtUp(source: String, followers: [String], to cursor: Int64, on admin: PostgresPool,
                          context: JourneyContext) async throws {
        let least = followers.map { "coalesce((SELECT cursor FROM \($0).event_cursors WHERE source = $1), 0)" }
            .joined(separator: ", ")
        _ = try await context.eventually("\(followers) to follow \(source) past \(cursor)", {
            try await admin.withConnection { connection in
                try await connection.query("SELECT least(\(least))", [.text(source)])[0].decode(0, as: Int64.self)
            }
        }) { $0 >= cursor }
    }

    /// The files of the accounts' blobs and their renditions in media's store.
    private func blobFiles(of ids: [String], on admin: PostgresPool, storage: String) async throws -> [String] {
        let keys: [String] = try await admin.withConnection { connection in
            try await connection.query("""
                SELECT sha256 FROM media.blobs WHERE owner_id::text = ANY($1)
                UNION SELECT f.key FROM media.rendition_files f JOIN media.blobs b ON b.sha256 = f.sha256
                WHERE b.owner_id::text = ANY($1)
                """, [.textArray(ids)]).map { try $0.decode(0) }
        }
        return keys.map { key in
            let characters = Array(key)
            return "\(storage)/blobs/\(String(characters[0..<2]))/\(String(characters[2..<4]))/\(key)"
        }
    }
}

extension EndToEndDeletionProofTests {
    /// What the deleted person writes, each distinctive so that the scan finds only hers.
    struct Person {
        var email: String
        var name: String
        var bio: String
        var message: String
        var eventTitle: String
        var legalName: String
        var whyMe: String
        var reportDetails: String

        var texts: [String] { [name, bio, message, eventTitle, legalName, whyMe, reportDetails] }

        /// A person whose email starts with `prefix` and whose texts hold a random run of letters
        /// (a legal name is words of letters), distinctive enough that only her rows hold them.
        static func distinctive(_ prefix: String) -> Person {
            let run = String((0..<10).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement()! })  // never empty
            return Person(email: JourneyContext.email("\(prefix)-\(run)"), name: "dana zq\(run)",
                          bio: "bio of dana \(run) who likes quiet jazz bars", message: "message from dana \(run) see you at eight",
                          eventTitle: "dana party \(run)", legalName: "dana legal \(run)", whyMe: "dana cooks \(run) on dates",
                          reportDetails: "dana reports \(run) rude remarks")
        }
    }

    /// One signed-in account of the person.
    struct Account {
        var client: GatewayClient
        var id: String
    }

    /// The person's life in each app, with the members she meets there.
    struct World {
        let context: JourneyContext
        let clients: Clients
        let person: Person

        func signUp(_ app: String) async throws -> Account {
            let client = try context.client(app, in: clients)
            let account = try await client.identity.signUpWithEmail(person.email, password: JourneyContext.password)
            return Account(client: client, id: account.id)
        }

        /// ÉLITE: in by a moderator's referral code, a push token, a profile with two photos, a
        /// like and a match with Ben, a message each way (his reply pushed to her), a report of Ben
        /// (without a block) and a block of the moderator.
        func elite() async throws -> (dana: Account, ben: GatewayClient, benID: String, moderatorID: String, matchID: String) {
            let moderator = try context.client("elite", in: clients)
            let moderatorID = try await moderator.identity.signUpWithEmail(JourneyContext.email("deletion-mod"),
                                                                           password: JourneyContext.password).id
            try await context.stack.grantRole("admin", to: moderatorID, app: "elite")
            _ = try await moderator.identity.refreshSession()
            let code = try await moderator.membership.createReferralCode().code
            let client = try context.client("elite", in: clients)
            let dana = Account(client: client, id: try await client.identity.signUpWithEmail(
                person.email, password: JourneyContext.password, referralCode: code).id)
            let token = JourneyContext.deviceToken()
            _ = try await client.devices.registerPushToken(token, platform: .apns, environment: .production, deviceID: "dana-phone")
            var photoIDs: [String] = []
            for index in 0..<2 {
                let png = RealPNG.make(width: 300 + index, height: 200, seed: Int.random(in: 0..<Int.max))
                let blob = try await client.media.upload(png, kind: .photo, contentType: "image/png")
                photoIDs = try await client.profilePhotos.add(blob.blobID).photos.map(\.blobID)
            }
            let spot = Profiles.GeoPoint(latitude: Double.random(in: -60...60), longitude: Double.random(in: -179...179))
            try await saveProfile(client, name: person.name, bio: person.bio, at: spot, photoIDs: photoIDs)

            let ben = try context.client("elite", in: clients)
            let benID = try await ben.identity.signUpWithEmail(JourneyContext.email("deletion-ben"), password: JourneyContext.password).id
            _ = try await moderator.membership.approveMember(accountID: benID)
            _ = try await ben.identity.refreshSession()
            try await saveProfile(ben, name: "Ben", bio: "Ben's own bio", at: spot, photoIDs: [])
            _ = try await context.retrying(while: "USER_NOT_FOUND") { try await ben.discovery.swipe(accountID: dana.id, .like) }
            let liked = try await context.retrying(while: "USER_NOT_FOUND") { try await client.discovery.swipe(accountID: benID, .like) }
            let match = try #require(liked.match, "her like of Ben makes the match")
            _ = try await context.retrying(while: "CONVERSATION_NOT_FOUND") { try await client.messaging.conversation(match.matchID) }
            _ = try await client.messaging.send(text: person.message, in: match.matchID)
            _ = try await ben.messaging.send(text: "Ben's reply, his own words", in: match.matchID)
            try await context.push(to: token, category: "message")
            _ = try await client.safety.report(accountID: benID, reason: .harassment, details: person.reportDetails)
            _ = try await client.safety.block(accountID: moderatorID)
            return (dana, ben, benID, moderatorID, match.matchID)
        }

        /// Momento: her event with a photo of hers.
        func momento() async throws -> Account {
            let dana = try await signUp("momento")
            var request = Momento.CreateEventRequest()
            request.title = person.eventTitle
            request.releaseAt = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + 3600) * 1_000_000))
            let event = try await dana.client.momento.create(request)
            let blob = try await dana.client.media.upload(RealPNG.make(width: 240, height: 180, seed: Int.random(in: 0..<Int.max)),
                                                          kind: .photo, contentType: "image/png")
            _ = try await dana.client.momento.addPhoto(blobID: blob.blobID, to: event.eventID)
            return dana
        }

        /// Swivo: a session she created with a friend, and her like of an option.
        func swivo() async throws -> (dana: Account, friend: GatewayClient, friendID: String, sessionID: String) {
            let dana = try await signUp("swivo")
            let friend = try context.client("swivo", in: clients)
            let friendID = try await friend.identity.signInAnonymously().id
            let session = try await dana.client.groupSessions.create(categoryID: "cuisines", quorum: 2)
            _ = try await friend.groupSessions.join(inviteCode: session.inviteCode)
            let pick = try #require(try await dana.client.groupSessions.deck(session.sessionID).options.first, "the deck has options")
            _ = try await dana.client.groupSessions.like(optionID: pick.optionID, in: session.sessionID)
            return (dana, friend, friendID, session.sessionID)
        }

        /// FirstDate: her submitted application (identity makes her an applicant).
        func firstDate() async throws -> Account {
            let dana = try await signUp("firstdate")
            for step: Production.SaveApplicationRequest.Step in [
                .aboutYou(.init(legalName: person.legalName, age: 29, bio: person.bio, neighborhood: "Little Havana")),
                .story(.init(whyMe: person.whyMe, quizAnswers: ["ideal_date": "cafecito"])),
                .look(.init(photoIDs: ["p1"], videoSelfieID: "v1")),
                .consent(.init(acknowledged: true)),
            ] {
                _ = try await dana.client.production.saveApplicationStep(step)
            }
            _ = try await dana.client.production.submitApplication()
            return dana
        }

        /// The Unseen: an encounter she starts, joined by another initiate, messages on both sides.
        func unseen() async throws -> Account {
            let dana = try await signUp("unseen")
            let other = try context.client("unseen", in: clients)
            _ = try await other.identity.signInAnonymously()
            let id = try await dana.client.encounters.start().encounterID
            _ = try await other.encounters.join(id)
            _ = try await dana.client.encounters.reportMessages(3, in: id)
            _ = try await other.encounters.reportMessages(3, in: id)
            return dana
        }

        private func saveProfile(_ client: GatewayClient, name: String, bio: String, at spot: Profiles.GeoPoint,
                                 photoIDs: [String]) async throws {
            var fields = Profiles.ProfileFields()
            fields.displayName = name
            fields.bio = bio
            fields.tags = ["jazz"]
            fields.preferredCuisines = ["Cuban"]
            fields.location = spot
            fields.photoIDs = photoIDs
            fields.active = true
            _ = try await client.profiles.updateProfile(fields, mask: ["display_name", "bio", "tags", "preferred_cuisines", "location",
                                                                       "photo_ids", "active"])
        }
    }
}
