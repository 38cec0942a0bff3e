import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import Journeys
import RPC
import TestSupport
import Testing

/// The edge as apps meet it: nginx with the configuration compose/nginx/render.sh renders from
/// rendezvous.conf.template (the one `make run` and compose use), in front of the real
/// executables: TLS from the local CA, calls spread over several instances, and the refusals
/// the edge makes itself arriving as gRPC statuses.
@Suite(.serialized) struct EdgeTests {
    static func client(_ edge: NginxEdge, app: String = "swivo", tls: Bool = true,
                       retryPolicy: RetryPolicy = RetryPolicy()) throws -> GatewayClient {
        let security: GatewayConfiguration.TransportSecurity = tls ? .tlsTrustingRoots(pemFile: try NginxEdge.caFile()) : .plaintext
        return try GatewayClient(configuration: GatewayConfiguration(host: tls ? "localhost" : "127.0.0.1", port: edge.port,
                                                                     security: security, app: app, deviceName: "edge",
                                                                     retryPolicy: retryPolicy),
                                 tokenStore: InMemoryTokenStore())
    }

    static func startIdentity() async throws -> EndToEndServiceProcess {
        try await DiscoveryStack.startIdentity(credentials: "discovery=\(DiscoveryStack.discoverySecret)")
    }

    /// The instances (`127.0.0.1:port`) the access log names for calls whose path contains `path`.
    static func instances(in log: String, calling path: String) -> Set<String> {
        Set(log.split(separator: "\n").filter { $0.contains(path) }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }.map(String.init)
        })
    }

    /// Waits up to 5 s for the access log to satisfy `predicate` (a stream's line is written when it ends).
    static func accessLog(_ edge: NginxEdge, until predicate: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let log = edge.accessLog
            if predicate(log) { return log }
            try await Task.sleep(for: .milliseconds(20))
        }
        return edge.accessLog
    }

    @Test func tls_clientTrustingTheLocalCA_signsInOverH2_andAClientThatDoesNotIsRefused() async throws {
        let identity = try await Self.startIdentity()
        let edge = try await NginxEdge.start(NginxEdge.Options(upstreams: ["identity": [identity.port]], tls: true))
        defer { edge.stop() }
        let trusting = try Self.client(edge)
        defer { trusting.close() }
        let account = try await trusting.identity.signInAnonymously()
        #expect(!account.id.isEmpty)

        // The system's roots do not include the local CA: the handshake fails, no call is made.
        let untrusting = try GatewayClient(configuration: GatewayConfiguration(host: "localhost", port: edge.port, security: .tls,
                                                                               app: "swivo", retryPolicy: .none),
                                           tokenStore: InMemoryTokenStore())
        defer { untrusting.close() }
        do {
            _ = try await untrusting.identity.signInAnonymously()
            Issue.record("a client that does not trust the local CA got through")
        } catch {
            #expect(error.code == .unavailable)
        }

        // The listener offers h2 and http/1.1 by ALPN (gRPC-Web clients use HTTP/1.1).
        for (flag, protocolName) in [("--http2", "h2"), ("--http1.1", "http/1.1")] {
            let curl = try await Subprocess.run("/usr/bin/curl", [
                "-sv", flag, "--cacert", try NginxEdge.caFile(), "-X", "POST", "-H", "content-type: application/grpc",
                "-o", "/dev/null", "https://localhost:\(edge.port)/rendezvous.events.v1.EventStream/WatchEvents",
            ], timeout: .seconds(10))
            #expect(curl.output.contains("ALPN: server accepted \(protocolName)"), "\(curl.output)")
            #expect(curl.output.contains("grpc-status: 12"), "\(curl.output)")
        }
        await identity.stop()
    }

    @Test func twoInstancesOfAService_bothTakeCalls() async throws {
        let first = try await Self.startIdentity()
        let second = try await Self.startIdentity()
        var options = NginxEdge.Options(upstreams: ["identity": [first.port, second.port]], tls: true)
        options.accessLog = true
        let edge = try await NginxEdge.start(options)
        defer { edge.stop() }
        let client = try Self.client(edge)
        for _ in 0..<6 { _ = try await client.identity.signInAnonymously() }
        client.close()
        let log = try await Self.accessLog(edge) { Self.instances(in: $0, calling: "/rendezvous.identity.").count == 2 }
        #expect(Self.instances(in: log, calling: "/rendezvous.identity.") == ["127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)"],
                "\(log)")
        await second.stop()
        await first.stop()
    }

    @Test func callsOverTheRateLimit_areResourceExhaustedWithAMessage() async throws {
        let identity = try await Self.startIdentity()
        var options = NginxEdge.Options(upstreams: ["identity": [identity.port]], tls: true)
        options.rate = "1r/s"
        options.burst = 3
        let edge = try await NginxEdge.start(options)
        defer { edge.stop() }
        let client = try Self.client(edge, retryPolicy: .none)
        defer { client.close() }
        // Twelve calls at once: the first and a burst of 3 above the rate of 1/s pass, the rest
        // are refused (one more may pass per second the calls take to arrive).
        let started = ContinuousClock.now
        let outcomes = await withTaskGroup(of: GatewayError?.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    do {
                        _ = try await client.identity.getSigningKeys()
                        return nil
                    } catch {
                        return error as? GatewayError ?? RPCError(code: .unknown, message: "\(error)")
                    }
                }
            }
            return await group.reduce(into: [GatewayError?]()) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started
        let answered = outcomes.filter { $0 == nil }.count
        let refusals = outcomes.compactMap { $0 }
        #expect(answered >= 4 && answered <= 4 + Int(elapsed.components.seconds) + 1, "\(answered) answered in \(elapsed)")
        #expect(!refusals.isEmpty)
        for refusal in refusals {
            #expect(refusal.code == .resourceExhausted)
            #expect(refusal.message.contains("too many calls"))
        }
        #expect(edge.errorLog.contains("limiting requests"))
        await identity.stop()
    }

    @Test func unroutedMethods_areUnimplemented_andAServiceNotRunningIsUnavailable() async throws {
        let identity = try await Self.startIdentity()
        let edge = try await NginxEdge.start(NginxEdge.Options(upstreams: ["identity": [identity.port]]))
        defer { edge.stop() }
        let throughEdge = RPCClient(host: "127.0.0.1", port: edge.port)
        let direct = RPCClient(host: "127.0.0.1", port: identity.port)
        defer {
            throughEdge.close()
            direct.close()
        }
        func status(_ call: () async throws -> Void) async -> RPCError? {
            do {
                try await call()
                return nil
            } catch {
                return error as? RPCError
            }
        }
        let internalCall = { (client: RPCClient) in
            _ = try await DevicesInternalClient(client: client).listActivePushTokens(.init(app: "elite", accountIDs: []))
        }
        let refused = await status { try await internalCall(throughEdge) }
        #expect(refused?.code == .unimplemented)
        #expect(refused?.message == "no such method at this address")
        // Identity itself has the method (it wants a service credential): the edge is what refuses.
        #expect(await status { try await internalCall(direct) }?.code == .unauthenticated)

        for path in ["/rendezvous.events.v1.EventStream/WatchEvents", "/rendezvous.production.v1.Points/Award",
                     "/rendezvous.identity.v1.ContactsInternal/MatchContacts", "/no.such.Service/Method"] {
            let answer = await status { _ = try await throughEdge.unary(path: path, request: Events.WatchEventsRequest(), as: Events.Event.self) }
            #expect(answer?.code == .unimplemented, "\(path)")
        }
        // A gRPC-Web caller (HTTP/1.1) gets the refusal in its own content type.
        let web = try await Subprocess.run("/usr/bin/curl", [
            "-s", "-i", "--http1.1", "-X", "POST", "-H", "content-type: application/grpc-web+proto",
            "http://127.0.0.1:\(edge.http1Port)/rendezvous.identity.v1.DevicesInternal/ListActivePushTokens",
        ], timeout: .seconds(10))
        #expect(web.output.lowercased().contains("content-type: application/grpc-web+proto"), "\(web.output)")
        #expect(web.output.contains("grpc-status: 12"), "\(web.output)")

        // Media was not started: its calls are UNAVAILABLE, which clients retry.
        let down = await status {
            _ = try await throughEdge.unary(path: "/rendezvous.media.v1.Media/GetBlob", request: Media.GetBlobRequest(), as: Media.Blob.self)
        }
        #expect(down?.code == .unavailable)
        #expect(down?.message == "the service is unavailable; retry")
        await identity.stop()
    }

    /// An ordinary call larger than the edge takes is RESOURCE_EXHAUSTED, while an upload (a
    /// client stream of chunks) may be larger; uploads and signed downloads go through the edge
    /// to two media instances sharing one blob store.
    @Test func bodyLimits_perRoute_andMediaThroughTwoInstances() async throws {
        let stack = try await MediaStack.start()
        do {
            let secondAdminPort = try LocalPort.free()
            let second = try await stack.startAnotherMedia(adminPort: secondAdminPort)
            do {
                var options = NginxEdge.Options(upstreams: ["identity": [stack.identity.port], "media": [stack.media.port, second.port]],
                                                downloads: [stack.mediaAdminPort, secondAdminPort], tls: true)
                options.bodyMax = "64k"
                options.accessLog = true
                let edge = try await NginxEdge.start(options)
                defer { edge.stop() }
                try await Self.bodyLimitsAndMedia(edge, media: [stack.media.port, second.port],
                                                  admin: [stack.mediaAdminPort, secondAdminPort])
            } catch {
                print(second.log)
                await second.stop()
                throw error
            }
            await second.stop()
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    static func bodyLimitsAndMedia(_ edge: NginxEdge, media: [Int], admin: [Int]) async throws {
        let member = try client(edge, app: "elite", retryPolicy: .none)
        defer { member.close() }
        _ = try await member.signUpAdmitted("\(TestDatabase.uniqueName("edge"))@example.com",
                                            password: "correct horse battery staple")
        var fields = Profiles.ProfileFields()
        fields.bio = String(repeating: "a", count: 100_000)
        do {
            _ = try await member.profiles.updateProfile(fields, mask: ["bio"])
            Issue.record("a 100 kB call passed an edge that takes 64 kB")
        } catch {
            #expect(error.code == .resourceExhausted)
            #expect(error.message == "request larger than the edge accepts")
        }

        // Uploads may be larger than ordinary calls (here 64 kB): three photos of about 300 kB.
        var uploaded: [(Media.Blob, [UInt8])] = []
        for index in 0..<3 {
            let photo = RealPNG.make(width: 300 + index, height: 240, size: 300_000, seed: Int.random(in: 0..<1_000_000))
            uploaded.append((try await member.media.upload(photo, kind: .photo, contentType: "image/png"), photo))
        }
        // Each is downloadable through the edge's HTTP route, whichever instance signs or serves it.
        for (blob, _) in uploaded {
            for _ in 0..<2 {
                let url = try await member.media.downloadURL(blob.blobID)
                let bytes = try await member.media.download(url.url, deadline: .seconds(20))
                #expect(bytes.starts(with: [0xFF, 0xD8]) || bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            }
        }
        let log = try await accessLog(edge) { instances(in: $0, calling: "/media/v1/blobs/").count == 2 }
        #expect(instances(in: log, calling: "/rendezvous.media.") == Set(media.map { "127.0.0.1:\($0)" }), "\(log)")
        #expect(instances(in: log, calling: "/media/v1/blobs/") == Set(admin.map { "127.0.0.1:\($0)" }), "\(log)")
    }

    /// A message sent through instance A reaches a realtime stream held by instance B: two edges,
    /// one routing messaging to each instance, a member on each.
    @Test func aMessageSentThroughOneInstance_reachesAStreamOnTheOther() async throws {
        let stack = try await DiscoveryStack.start(messagingInstances: 2)
        do {
            var edges: [NginxEdge] = []
            defer { edges.forEach { $0.stop() } }
            for instance in stack.messaging {
                edges.append(try await NginxEdge.start(NginxEdge.Options(upstreams: [
                    "identity": [stack.identity.port], "discovery": [stack.discovery.port], "messaging": [instance.port],
                ])))
            }
            let (ana, anaAccount) = try await EndToEndMessagingTests.member(edges[0])
            let (ben, benAccount) = try await EndToEndMessagingTests.member(edges[1])
            defer { [ana, ben].forEach { $0.close() } }
            let benInbox = Inbox(ben)
            defer { benInbox.stop() }
            try await benInbox.first { if case .ready? = $0.event { true } else { false } }
            _ = try await EndToEndDiscoveryTests.like(benAccount.id, by: ana)
            let match = try #require(try await ben.discovery.swipe(accountID: anaAccount.id, .like).match)
            try await benInbox.first { if case .match? = $0.event { true } else { false } }
            let hello = try #require(try await ana.messaging.send(text: "From instance A", in: match.matchID).message)
            try await benInbox.first { $0.event == .message(.init(message: hello)) }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// Messaging behind the edge with two instances: the whole chat journey (realtime streams,
    /// receipts, a block) passes while the edge spreads its calls over both, so what one instance
    /// writes reaches streams the other holds (through the outbox; RealtimeTests pins the exact
    /// cross-instance case).
    @Test func messagingWithTwoInstances_chatJourneyThroughTheEdge() async throws {
        let stack = try await DiscoveryStack.start(messagingInstances: 2)
        do {
            var options = NginxEdge.Options(upstreams: ["identity": [stack.identity.port], "discovery": [stack.discovery.port],
                                                        "messaging": stack.messaging.map(\.port)])
            options.accessLog = true
            let edge = try await NginxEdge.start(options)
            defer { edge.stop() }
            try await EndToEndMessagingTests.run(edge)
            let log = try await Self.accessLog(edge) { !Self.instances(in: $0, calling: "/rendezvous.messaging.v1.Realtime/").isEmpty }
            #expect(Self.instances(in: log, calling: "/rendezvous.messaging.")
                == Set(stack.messaging.map { "127.0.0.1:\($0.port)" }), "\(log)")
            #expect(!Self.instances(in: log, calling: "/rendezvous.messaging.v1.Realtime/Subscribe").isEmpty, "\(log)")
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}
