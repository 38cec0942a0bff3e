import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import Journeys
import RPC
import Synchronization
import TestSupport
import Testing

/// Messaging as an app meets it: `GatewayClient` talking to the nginx edge, which routes to the
/// real identity, discovery and messaging executables.
@Suite(.serialized) struct EndToEndMessagingTests {
    static func client(_ edge: NginxEdge) throws -> GatewayClient {
        try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: edge.port, security: .plaintext,
                                                              app: "elite", deviceName: "e2e"),
                          tokenStore: InMemoryTokenStore())
    }

    /// An ÉLITE member, admitted, with an active profile, signed up through the edge.
    static func member(_ edge: NginxEdge) async throws -> (GatewayClient, Identity.Account) {
        let client = try client(edge)
        let account = try await client.signUpAdmitted("\(TestDatabase.uniqueName("e2emsg"))@example.com",
                                                      password: "correct horse battery staple")
        var fields = Profiles.ProfileFields()
        fields.displayName = "Member \(account.id.prefix(4))"
        fields.bio = "hello"
        fields.active = true
        _ = try await client.profiles.updateProfile(fields, mask: ["display_name", "bio", "active"])
        return (client, account)
    }

    /// A plus member, a free one and an outsider match, chat with receipts as their tiers allow,
    /// and a block mid-conversation stops both from sending.
    @Test func twoMembersMatch_chat_withReceiptsByTier_untilABlock() async throws {
        let stack = try await DiscoveryStack.start(withEdge: true, messagingInstances: 1)
        do {
            try await Self.run(try #require(stack.edge))
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    static func run(_ edge: NginxEdge) async throws {
        let (ana, anaAccount) = try await member(edge)
        let (ben, benAccount) = try await member(edge)
        let (eve, _) = try await member(edge)
        let (admin, adminAccount) = try await member(edge)
        defer { [ana, ben, eve, admin].forEach { $0.close() } }
        let grant = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", "elite", "--account-id", adminAccount.id, "--role", "admin"],
            environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
        try #require(grant.exitCode == 0)
        _ = try await admin.identity.refreshSession()
        _ = try await admin.membership.setTier(accountID: anaAccount.id, tier: "plus")
        _ = try await ana.identity.refreshSession()

        let (anaInbox, benInbox) = (Inbox(ana), Inbox(ben))
        defer {
            anaInbox.stop()
            benInbox.stop()
        }
        try await anaInbox.first { if case .ready? = $0.event { true } else { false } }
        try await benInbox.first { if case .ready? = $0.event { true } else { false } }

        // Discovery learns of the profiles from identity's events; then a mutual like.
        _ = try await EndToEndDiscoveryTests.like(benAccount.id, by: ana)
        let match = try #require(try await ben.discovery.swipe(accountID: anaAccount.id, .like).match)
        let opened = try await anaInbox.first { if case .match? = $0.event { true } else { false } }
        #expect(opened.event == .match(.init(conversation: { if case .match(let m)? = opened.event { m.conversation } else { nil } }(),
                                             superLike: false)))
        let conversation = try await ana.messaging.conversation(match.matchID)
        #expect(conversation.otherAccountID == benAccount.id && conversation.state == .open)

        // Chat: each side hears the other live.
        let hello = try #require(try await ana.messaging.send(text: "Dinner on Friday?", in: match.matchID).message)
        try await benInbox.first { $0.event == .message(.init(message: hello)) }
        let reply = try #require(try await ben.messaging.send(text: "Yes!", in: match.matchID).message)
        try await anaInbox.first { $0.event == .message(.init(message: reply)) }
        #expect(try await ben.messaging.unreadCount().total == 1)
        #expect(try await ben.messaging.conversations().conversations.first?.lastMessage == reply)

        // Receipts: ana (plus) learns that ben read; ben (free) is never told.
        try await ben.messaging.markRead(in: match.matchID)
        try await anaInbox.first { if case .readReceipt(let receipt)? = $0.event { receipt.readerID == benAccount.id } else { false } }
        #expect(try await ana.messaging.messages(in: match.matchID).messages.first { $0.messageID == hello.messageID }?.read == true)
        try await ana.messaging.markRead(in: match.matchID)
        #expect(try await ben.messaging.messages(in: match.matchID).messages.first { $0.messageID == reply.messageID }?.read == false)

        // Someone else's conversation.
        let outsider = await gatewayError { _ = try await eve.messaging.messages(in: match.matchID) }
        #expect(outsider?.code == .permissionDenied && outsider?.messagingReason == .notAParticipant)

        // Ben blocks ana mid-conversation: both are told and neither can send.
        _ = try await ben.safety.block(accountID: anaAccount.id)
        try await anaInbox.first { $0.event == .conversationClosed(.init(conversationID: match.matchID, reason: .blocked)) }
        for client in [ana, ben] {
            let refused = await gatewayError { _ = try await client.messaging.send(text: "still there?", in: match.matchID) }
            #expect(refused?.code == .failedPrecondition && refused?.messagingReason == .conversationClosed)
        }
        // ben's stream never carried a receipt.
        try await benInbox.first { if case .conversationClosed? = $0.event { true } else { false } }
        #expect(!benInbox.all.contains { if case .readReceipt? = $0.event { true } else { false } })
    }
}
