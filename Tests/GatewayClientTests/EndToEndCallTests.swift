import Contracts
import Foundation
import GatewayClient
import Journeys
import RPC
import TestSupport
import Testing

/// A video call as the apps place it: `GatewayClient` through the nginx edge to the real
/// identity, discovery and messaging executables.
@Suite(.serialized) struct EndToEndCallTests {
    /// An ÉLITE BLACK member rings a free member they matched; the callee hears of it on their
    /// realtime stream, answers, the offer, answer and candidates cross, and the caller hangs
    /// up. The free member cannot call back.
    @Test func aBlackMemberRings_theMatchAnswers_signalsCross_andTheCallerHangsUp() async throws {
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

    /// The call, between members `member` makes (signed up through the edge by one transport).
    static func run(_ edge: NginxEdge,
                    member: (NginxEdge) async throws -> (GatewayClient, Identity.Account) = EndToEndMessagingTests.member)
        async throws {
        let (ana, anaAccount) = try await member(edge)
        let (ben, benAccount) = try await member(edge)
        let (admin, adminAccount) = try await member(edge)
        defer { [ana, ben, admin].forEach { $0.close() } }
        let grant = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", "elite", "--account-id", adminAccount.id, "--role", "admin"],
            environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
        try #require(grant.exitCode == 0)
        _ = try await admin.identity.refreshSession()
        _ = try await admin.membership.setTier(accountID: anaAccount.id, tier: "black")
        _ = try await ana.identity.refreshSession()
        let benInbox = Inbox(ben)
        defer { benInbox.stop() }
        try await benInbox.first { if case .ready? = $0.event { true } else { false } }

        _ = try await EndToEndDiscoveryTests.like(benAccount.id, by: ana)
        let match = try #require(try await ben.discovery.swipe(accountID: anaAccount.id, .like).match)
        try await benInbox.first { if case .match? = $0.event { true } else { false } }

        // The free member may not call: the refusal names the tier.
        let refused = await gatewayError { _ = try await ben.calls.ring(conversationID: match.matchID) }
        #expect(refused?.code == .permissionDenied && refused?.callReason == .videoCallsNotInTier)
        #expect(refused?.details["tier_display_name"] == "ÉLITE")

        var caller = try await ana.calls.ring(conversationID: match.matchID)
        #expect(caller.call.state == .ringing && caller.call.calleeID == benAccount.id)
        try await caller.sendOffer(sdp: "v=0 offer from ana")
        try await caller.send(candidate: Calls.IceCandidate(candidate: "candidate:1 1 udp 1 192.0.2.1 5000 typ host",
                                                            sdpMid: "0"))
        // Only the callee accepts: the refusal ends the caller's session (on Signal's stream
        // through its iteration, by Send from the method too), the call rings on, the caller
        // joins again.
        let ringingCaller = caller
        let notCallee = await gatewayError {
            try await ringingCaller.accept()
            for try await _ in ringingCaller {}
        }
        #expect(notCallee?.code == .failedPrecondition && notCallee?.callReason == .notTheCallee)
        caller = try await ana.calls.join(callID: caller.call.callID)
        #expect(caller.call.state == .ringing)
        let incoming = try await benInbox.first { event in
            if case .callUpdated(let updated)? = event.event { updated.call?.state == .ringing } else { false }
        }
        guard case .callUpdated(let updated)? = incoming.event, let ringing = updated.call else { throw CancellationError() }
        #expect(ringing.callID == caller.call.callID && ringing.callerID == anaAccount.id)

        let callee = try await ben.calls.join(callID: ringing.callID)
        var calleeEvents = callee.makeAsyncIterator()
        #expect(try await calleeEvents.next()?.event == .offer(.init(sdp: "v=0 offer from ana")))
        #expect(try await calleeEvents.next()?.sequence == 2)
        try await callee.accept()
        #expect(try await calleeEvents.next()?.event.flatMap(Self.state) == .accepted)

        var callerEvents = caller.makeAsyncIterator()
        #expect(try await callerEvents.next()?.event.flatMap(Self.state) == .accepted)
        try await callee.sendAnswer(sdp: "v=0 answer from ben")
        #expect(try await callerEvents.next()?.event == .answer(.init(sdp: "v=0 answer from ben")))

        try await caller.hangUp()
        let ended = try await callerEvents.next()?.event
        #expect(ended.flatMap(Self.state) == .ended)
        #expect(try await callerEvents.next() == nil)
        #expect(try await calleeEvents.next()?.event.flatMap(Self.state) == .ended)
        #expect(try await calleeEvents.next() == nil)
    }

    static func state(_ event: Calls.SignalResponse.Event) -> Calls.CallState? {
        if case .call(let call) = event { call.state } else { nil }
    }
}
