import Contracts
import Foundation
import GatewayClient
import Journeys
import Postgres
import RPC
import TestSupport
import Testing

/// The personal-data export (GDPR access; rendezvous/privacy/v1/privacy.proto), on the deletion
/// proof's stack and world: the same person's life in the five apps, exported through the gateway
/// client. What the scan finds of her in a service's schema, her export from that service holds;
/// it holds what she wrote and what she could see of others, nothing more; another member cannot
/// ask for it; once her deletion settles her tokens export nothing.
extension EndToEndDeletionProofTests {
    /// Tables that hold traces of a member but are not in her export, and why.
    static let notExported: [String: String] = [
        "identity.outbox": "event history between services; each event's content is a record of a section",
        "discovery.outbox": "event history between services; each event's content is a record of a section",
        "messaging.outbox": "event history between services; each event's content is a record of a section",
        "media.outbox": "event history between services; each event's content is a record of a section",
        "production.outbox": "event history between services; each event's content is a record of a section",
    ]

    @Test func export_holdsWhatSheDidInEveryService_nothingOfOthers_onlyForHer_andNothingAfterDeletion() async throws {
        let stack = try #require(JourneyStackTrait.stack)
        let context = JourneyContext(stack: stack, patience: .seconds(15))
        let clients = Clients()
        defer { clients.close() }
        let admin = try await TestDatabase.makeAdminPool(poolSize: 1)
        defer { admin.close() }
        let person = Person.distinctive("exported")
        let world = World(context: context, clients: clients, person: person)
        let elite = try await world.elite()
        let swivo = try await world.swivo()
        let momento = try await world.momento()
        let firstDate = try await world.firstDate()
        let unseen = try await world.unseen()
        let accounts = [elite.dana, momento, swivo.dana, firstDate, unseen]
        // A second device of hers, whose session the test can read.
        let phoneStore = InMemoryTokenStore()
        let phone = try context.client("elite", in: clients, tokenStore: phoneStore)
        _ = try await phone.identity.signInWithEmail(person.email, password: JourneyContext.password)

        var documents: [String: PersonalDataDocument] = [:]
        for account in accounts { documents[account.id] = try await account.client.personalData.exportAll() }
        for account in accounts {
            let document = try #require(documents[account.id])
            #expect(document.exports.map(\.service) == PersonalDataAPI.Service.allCases.map(\.rawValue))
            #expect(document.exports.allSatisfy { $0.accountID == account.id && $0.exportedAt != nil },
                    "every service answers for her account: \(document.exports.map(\.accountID))")
        }

        // What she did, as it was written.
        let eliteExport = try #require(documents[elite.dana.id])
        let ownAccount = try eliteExport.records(.identity, "accounts")
        #expect(ownAccount.count == 1 && ownAccount.first?["id"] as? String == elite.dana.id)
        let email = try eliteExport.records(.identity, "email_credentials")
        #expect(email.count == 1 && email.first?["email"] as? String == person.email && email.first?["password_hash"] == nil,
                "her email, never her password hash: \(email)")
        let profile = try #require(try eliteExport.records(.identity, "profiles").first)
        #expect(profile["display_name"] as? String == person.name && profile["bio"] as? String == person.bio)
        #expect((profile["location"] as? String)?.hasPrefix("POINT(") == true, "location as WKT: \(String(describing: profile["location"]))")
        #expect(try eliteExport.records(.identity, "sessions").count >= 2, "her sign-ins, the second device's included")
        #expect(try eliteExport.records(.identity, "push_tokens").map { $0["device_id"] as? String } == ["dana-phone"])
        let report = try eliteExport.records(.identity, "reports")
        #expect(report.count == 1 && report.first?["reported_id"] as? String == elite.benID
                && report.first?["details"] as? String == person.reportDetails, "her report of Ben: \(report)")
        #expect(try eliteExport.records(.identity, "blocks").map { $0["blocked_id"] as? String } == [elite.moderatorID])
        let swipes = try eliteExport.records(.discovery, "swipes")
        #expect(swipes.count == 1 && swipes.first?["swiper_id"] as? String == elite.dana.id
                && swipes.first?["target_id"] as? String == elite.benID, "her one swipe, never Ben's of her: \(swipes)")
        #expect(try eliteExport.records(.discovery, "matches").map { $0["id"] as? String } == [elite.matchID])
        let messages = try eliteExport.records(.messaging, "messages")
        #expect(messages.compactMap { $0["text"] as? String } == [person.message, "Ben's reply, his own words"],
                "the messages she sent and received, in order: \(messages)")
        let blobs = try eliteExport.records(.media, "blobs")
        let files = try #require(eliteExport.export(of: .media)?.files)
        let photos = try eliteExport.records(.media, "profile_photos")
        #expect(blobs.count == 2 && photos.count == 2, "her two profile photos: \(blobs), \(photos)")
        #expect(Set(files.map(\.blobID)) == Set(blobs.compactMap { $0["id"] as? String })
                && files.allSatisfy { $0.url.hasPrefix("/media/v1/blobs/\($0.blobID)?expires=") && $0.urlExpiresAt != nil },
                "a signed URL to each of her files: \(files.map(\.url))")
        for file in files {
            let blob = try #require(blobs.first { $0["id"] as? String == file.blobID })
            // A photo's URL serves its rendition (no metadata), the size of the photo she uploaded.
            let served = try await elite.dana.client.media.download(file.url)
            #expect(RealPNG.dimensions(served).map { [$0.width, $0.height] } == [blob["width"] as? Int, blob["height"] as? Int],
                    "her photo \(file.blobID) downloads: \(served.count) bytes, blob \(blob)")
        }
        let momentoExport = try #require(documents[momento.id])
        #expect(try momentoExport.records(.media, "events").map { $0["title"] as? String } == [person.eventTitle])
        #expect(try momentoExport.records(.media, "event_photos").count == 1)
        let swivoExport = try #require(documents[swivo.dana.id])
        #expect(try swivoExport.records(.discovery, "group_sessions").map { $0["id"] as? String } == [swivo.sessionID])
        #expect(try swivoExport.records(.discovery, "session_likes").count == 1)
        let application = try #require(documents[firstDate.id]).records(.production, "applications")
        #expect(application.count == 1 && application.first?["legal_name"] as? String == person.legalName
                && application.first?["why_me"] as? String == person.whyMe, "her application: \(application)")
        #expect(try #require(documents[unseen.id]).records(.messaging, "encounters").count == 1)

        // Every table the scan finds her in is in her export from that service: her rows by id,
        // her texts in a record; nothing of her is kept where the export does not look.
        let traces = accounts.map { Trace(kind: .accountID, value: $0.id) } + [Trace(kind: .email, value: person.email)]
            + person.texts.map { Trace(kind: .text, value: $0) }
        let scan = try await PersonalDataScan.run(for: traces, on: admin)
        let json = try accounts.map { try String(decoding: #require(documents[$0.id]).jsonData(), as: UTF8.self) }
        var covered = Set<String>()
        for finding in scan.findings where Self.notExported[finding.table] == nil {
            let schema = String(finding.table.prefix { $0 != "." })
            let table = String(finding.table.dropFirst(schema.count + 1))
            let service = try #require(PersonalDataAPI.Service(rawValue: schema))
            for trace in finding.traces {
                switch trace.kind {
                case .accountID:
                    let records = try documents[trace.value]?.records(service, table) ?? []
                    #expect(!records.isEmpty, "\(finding.table) holds account \(trace.value), whose \(schema) export has no \(table)")
                case .email, .text:
                    let held = try accounts.contains { account in
                        try #require(documents[account.id]).export(of: service)?.sections.contains { section in
                            section.records.contains { $0.lowercased().contains(trace.value.lowercased()) }
                        } == true
                    }
                    #expect(held, "\(finding.table) holds her \(trace), which her \(schema) export does not")
                }
            }
            covered.insert(finding.table)
        }
        #expect(Set(covered.map { String($0.prefix { $0 != "." }) }) == Set(PersonalDataScan.schemas),
                "the scan found her in every schema: \(covered.sorted())")

        // Nothing of others beyond what she could see, and no secret.
        let ben = try await elite.ben.identity.getAccount()
        let session = try #require(phoneStore.load())
        for (text, what) in [(ben.email, "Ben's email"), ("Ben's own bio", "Ben's bio"), ("password_hash", "a password hash"),
                             ("token_hash", "a refresh token hash"), ("code_hash", "a one-time code hash"),
                             (session.accessToken, "her access token"), (session.refreshToken, "her refresh token")] {
            #expect(!json.contains { $0.contains(text) }, "her export holds \(what)")
        }
        let benJSON = String(decoding: try await elite.ben.personalData.exportAll().jsonData(), as: UTF8.self)
        #expect(benJSON.contains(person.message), "Ben's export holds her message he received")
        for text in [person.email, person.bio, person.reportDetails, person.name] {
            #expect(!benJSON.contains(text), "Ben's export holds her \(text): only what he could see of her")
        }

        // Only she may ask.
        for service in PersonalDataAPI.Service.allCases {
            let error = await gatewayError { _ = try await elite.ben.personalData.export(service, accountID: elite.dana.id) }
            #expect(error?.code == .permissionDenied && error?.reason == "NOT_OWN_DATA",
                    "\(service): Ben asking for her data: \(String(describing: error))")
            let own = try await elite.dana.client.personalData.export(service, accountID: elite.dana.id)
            #expect(own.accountID == elite.dana.id, "\(service): naming her own account is allowed")
        }

        // A member the app has not admitted yet may have her copy too.
        let waitlisted = try context.client("elite", in: clients)
        let waitlistedID = try await waitlisted.identity.signUpWithEmail(JourneyContext.email("export-waitlisted"),
                                                                         password: JourneyContext.password).id
        let waiting = try await waitlisted.personalData.exportAll()
        #expect(try waiting.records(.identity, "accounts").map { $0["membership_status"] as? String } == ["waitlisted"]
                && waiting.exports.allSatisfy { $0.accountID == waitlistedID }, "a waitlisted member's export")

        // After her deletion settles, her tokens export nothing: each service refuses the second
        // device's access token, and its client is signed out.
        for account in accounts { try await account.client.identity.deleteAccount() }
        try await settled(ids: accounts.map(\.id), matchID: elite.matchID, on: admin, context: context)
        let edge = RPCClient(host: stack.edgeHost, port: stack.edgePort)
        defer { edge.close() }
        let options = CallOptions(metadata: Metadata(["authorization": "Bearer \(session.accessToken)"]))
        let request = Privacy.ExportMyDataRequest()
        for service in PersonalDataAPI.Service.allCases {
            let refusal = await rpcError {
                switch service {
                case .identity: _ = try await IdentityClient(client: edge).exportMyData(request, options: options)
                case .discovery: _ = try await DiscoveryClient(client: edge).exportMyData(request, options: options)
                case .messaging: _ = try await MessagingClient(client: edge).exportMyData(request, options: options)
                case .production: _ = try await CastingClient(client: edge).exportMyData(request, options: options)
                case .media: _ = try await MediaClient(client: edge).exportMyData(request, options: options)
                }
            }
            #expect(refusal?.code == .unauthenticated && refusal?.reason == "TOKEN_REVOKED",
                    "\(service) after the deletion: \(String(describing: refusal))")
        }
        let signedOut = await gatewayError { _ = try await phone.personalData.exportAll() }
        #expect(signedOut?.isSignedOut == true, "the second device is signed out: \(String(describing: signedOut))")
    }

    /// The RPCError `body` throws; nil when it returns.
    private func rpcError(_ body: () async throws -> Void) async -> RPCError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? RPCError
        }
    }
}
