import Contracts
import Foundation
import GatewayClient
import Journeys
import RPC
import Synchronization
import TestSupport
import Testing

/// The gateway client as an iOS app ships it: `GatewayTransport.grpcWeb()`, URLSession speaking
/// gRPC-Web (FoundationNetworking's libcurl on Linux), to the nginx edge's HTTP/1.1 listener,
/// which passes gRPC-Web to the real services. Plain `http://` is HTTP/1.1 on libcurl, which the
/// services' h2c ports do not speak; the edge's listener does.
@Suite(.serialized) struct EndToEndGRPCWebTests {
    static func client(port: Int, app: String) throws -> GatewayClient {
        try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: port, security: .plaintext,
                                                              app: app, deviceName: "e2e-web"),
                          transport: .grpcWeb(), tokenStore: InMemoryTokenStore())
    }

    /// Anonymous sign-in, authenticated calls, a refresh that rotates the tokens, an upload by
    /// client streaming with its progress, the signed download by GET, and a deadline.
    @Test func signIn_refresh_upload_download_andDeadline_overGRPCWeb() async throws {
        let stack = try await MediaStack.start(withEdge: true)
        do {
            let edge = try #require(stack.edge)
            let client = try Self.client(port: edge.http1Port, app: "momento")
            defer { client.close() }

            let account = try await client.identity.signInAnonymously()
            let first = try #require(try client.currentSession())
            #expect(first.accountID == account.id)
            #expect(try await client.identity.listSessions().contains { $0.current })

            let refreshed = try await client.identity.refreshSession()
            #expect(refreshed.accessToken != first.accessToken && refreshed.refreshToken != first.refreshToken)
            #expect(try await client.identity.listSessions().count == 1, "the refreshed session is the same session")

            let bytes = RealPNG.make(width: 800, height: 600, size: 600_000, seed: Int.random(in: 0..<Int.max))
            let seen = Mutex<[Int64]>([])
            let blob = try await client.media.upload(bytes, kind: .photo, contentType: "image/png", chunkSize: 200_000) { progress in
                seen.withLock { $0.append(progress.sentBytes) }
            }
            #expect((blob.width, blob.height) == (800, 600))
            #expect(seen.withLock { $0 } == [200_000, 400_000, 600_000])
            let served = try await client.media.download(try await client.media.downloadURL(blob.blobID).url)
            #expect(RealPNG.dimensions(served).map { [$0.width, $0.height] } == [800, 600])

            let start = ContinuousClock.now
            let late = await gatewayError { _ = try await client.media.blob(blob.blobID, deadline: .nanoseconds(1)) }
            #expect(late?.code == .deadlineExceeded)
            #expect(ContinuousClock.now - start < .seconds(5))
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// Two members' realtime streams (server streaming) deliver Ready, the match and a message
    /// over gRPC-Web; a wrong password comes back with its reason.
    @Test func realtimeEvents_andReasons_overGRPCWeb() async throws {
        let stack = try await DiscoveryStack.start(withEdge: true, messagingInstances: 1)
        do {
            let edge = try #require(stack.edge)
            let email = EndToEnd.uniqueEmail()
            let (ana, anaAccount) = try await Self.member(edge, email: email)
            let (ben, benAccount) = try await Self.member(edge, email: EndToEnd.uniqueEmail())
            defer { [ana, ben].forEach { $0.close() } }

            let wrong = await gatewayError {
                _ = try await Self.client(port: edge.http1Port, app: "elite").identity.signInWithEmail(email, password: "not it")
            }
            #expect(wrong?.code == .unauthenticated && wrong?.identityReason == .invalidCredentials)

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
            try await anaInbox.first { if case .match? = $0.event { true } else { false } }
            let hello = try #require(try await ana.messaging.send(text: "Over gRPC-Web?", in: match.matchID).message)
            try await benInbox.first { $0.event == .message(.init(message: hello)) }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// A video call over gRPC-Web, which cannot carry Signal's bidirectional stream: `calls`
    /// takes Attach and Send instead, behind the same API. A BLACK member rings, the match
    /// hears of it on realtime, joins, accepts; offer, candidate and answer cross in order; the
    /// caller hangs up and both sessions end.
    @Test func aVideoCall_isPlacedAnsweredAndHungUp_overGRPCWeb() async throws {
        let stack = try await DiscoveryStack.start(withEdge: true, messagingInstances: 1)
        do {
            try await EndToEndCallTests.run(try #require(stack.edge)) { edge in
                try await Self.member(edge, email: EndToEnd.uniqueEmail())
            }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// An ÉLITE member, admitted, with an active profile, signed up over gRPC-Web.
    static func member(_ edge: NginxEdge, email: String) async throws -> (GatewayClient, Identity.Account) {
        let client = try client(port: edge.http1Port, app: "elite")
        let account = try await client.signUpAdmitted(email, password: EndToEndUsers.password)
        var fields = Profiles.ProfileFields()
        fields.displayName = "Web \(account.id.prefix(4))"
        fields.bio = "hello"
        fields.active = true
        _ = try await client.profiles.updateProfile(fields, mask: ["display_name", "bio", "active"])
        return (client, account)
    }
}
