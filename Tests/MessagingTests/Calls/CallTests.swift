import Contracts
import Foundation
import Postgres
import RPC
import Testing
import TestSupport

/// Video call signaling over the wire: real identity, discovery and two messaging instances
/// (calls relayed between them through Postgres), a fake APNs for the wake-up push.
@Suite(.serialized, .callServices) struct CallTests {
    /// An ÉLITE BLACK caller and an ÉLITE free callee who matched, with their conversation.
    struct Pair {
        let members: MessagingMembers
        let caller: Member
        let callee: Member
        let conversation: String

        func calls(_ instance: Int) -> CallsClient { CallsClient(client: members.messaging[instance].client) }
    }

    static func pair(callerTier: String = "black") async throws -> Pair {
        let members = try await MessagingMembers.make()
        let caller = try await members.grantTier(callerTier, to: try await members.join("elite"))
        let callee = try await members.join("elite")
        return Pair(members: members, caller: caller, callee: callee, conversation: try await members.match(caller, callee))
    }

    static func offer(_ sdp: String) -> Calls.SignalRequest.Action { .offer(Calls.SessionDescription(sdp: sdp)) }
    static func answer(_ sdp: String) -> Calls.SignalRequest.Action { .answer(Calls.SessionDescription(sdp: sdp)) }
    /// What the other side receives for `action`.
    static func relayed(_ action: Calls.SignalRequest.Action) -> Calls.SignalResponse.Event? {
        switch action {
        case .offer(let description): .offer(description)
        case .answer(let description): .answer(description)
        case .iceCandidate(let candidate): .iceCandidate(candidate)
        default: nil
        }
    }

    static func ice(_ n: Int) -> Calls.SignalRequest.Action {
        .iceCandidate(Calls.IceCandidate(candidate: "candidate:\(n) 1 udp 2122260223 192.0.2.\(n) 5\(n)000 typ host",
                                         sdpMid: "0", sdpMlineIndex: 0, usernameFragment: "frag"))
    }

    @Test func aCallRungOnOneInstance_isAnsweredOnAnother_withSignalsRelayedInOrderOnce() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let calleeRealtime = try await RealtimeProbe.open(pair.members.realtime[1], token: pair.callee.token)
        defer { calleeRealtime.cancel() }

        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        defer { caller.cancel() }
        let ringing = try await caller.firstCall { $0.state == .ringing }
        #expect(ringing.callerID == pair.caller.id && ringing.calleeID == pair.callee.id)
        #expect(ringing.conversationID == pair.conversation)
        // The caller's offer and candidates wait for the callee.
        try await caller.send(Self.offer("v=0 offer"))
        for n in 1...3 { try await caller.send(Self.ice(n)) }

        // The incoming call reaches the callee's realtime stream on the other instance.
        let incoming = try await calleeRealtime.first { event in
            if case .callUpdated(let updated)? = event.event { updated.call?.state == .ringing } else { false }
        }
        guard case .callUpdated(let updated)? = incoming.event, let call = updated.call else { throw CancellationError() }
        #expect(call.callID == ringing.callID)

        let callee = try await CallProbe.join(pair.calls(1), token: pair.callee.token, call: call.callID)
        defer { callee.cancel() }
        try await callee.firstCall { $0.state == .ringing }
        let fromCaller = try await callee.signals(count: 4)
        #expect(fromCaller.map(\.event) == ([Self.offer("v=0 offer")] + (1...3).map(Self.ice)).map(Self.relayed))
        #expect(fromCaller.map(\.sequence) == [1, 2, 3, 4])

        try await callee.send(.accept(.init()))
        let accepted = try await caller.firstCall { $0.state == .accepted }
        #expect(accepted.acceptedAt != nil)
        try await callee.send(Self.answer("v=0 answer"))
        for n in 4...5 { try await callee.send(Self.ice(n)) }
        let fromCallee = try await caller.signals(count: 3)
        try await caller.send(Self.ice(6))
        #expect(fromCallee.map(\.event) == ([Self.answer("v=0 answer")] + (4...5).map(Self.ice)).map(Self.relayed))
        #expect(fromCallee.map(\.sequence) == [5, 6, 7])
        let late = try await callee.signals(count: 5)
        #expect(late.last?.sequence == 8)

        // Hang-up by the caller: both see the end, both streams close OK.
        try await caller.send(.hangUp(.init()))
        for side in [caller, callee] {
            let ended = try await side.firstCall { $0.state == .ended }
            #expect(ended.endedBy == pair.caller.id)
            #expect(try await side.end().code == .ok)
        }
        // Each signal reached the other side once; nobody got their own.
        #expect(caller.signals.count == 3 && callee.signals.count == 5)
        #expect(caller.states == [.ringing, .accepted, .ended] && callee.states == [.ringing, .accepted, .ended])
        try await calleeRealtime.first { event in
            if case .callUpdated(let updated)? = event.event { updated.call?.state == .ended } else { false }
        }
    }

    @Test func theCallee_declines() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        defer { caller.cancel() }
        let id = try await caller.firstCall { _ in true }.callID
        // Only the callee accepts or declines.
        let callerAccept = try await CallProbe.join(pair.calls(1), token: pair.caller.token, call: id)
        try await callerAccept.send(.accept(.init()))
        #expect(try await callerAccept.end().reason == "NOT_THE_CALLEE")
        // The take-over ended the first stream of the caller's side.
        #expect(try await caller.end().reason == "CALL_ATTACHED_ELSEWHERE")
        let rejoined = try await CallProbe.join(pair.calls(0), token: pair.caller.token, call: id)
        defer { rejoined.cancel() }

        let callee = try await CallProbe.join(pair.calls(1), token: pair.callee.token, call: id)
        defer { callee.cancel() }
        // Signals before accepting are refused; the call rings on.
        try await callee.send(Self.answer("too early"))
        let early = try await callee.end()
        #expect(early.code == .failedPrecondition && early.reason == "CALL_NOT_ACCEPTED")
        let again = try await CallProbe.join(pair.calls(1), token: pair.callee.token, call: id)
        defer { again.cancel() }
        try await again.send(.decline(.init()))
        for side in [rejoined, again] {
            let declined = try await side.firstCall { $0.state == .declined }
            #expect(declined.endedBy == pair.callee.id && declined.endedAt != nil)
            #expect(try await side.end().code == .ok)
        }
        #expect(rejoined.signals.isEmpty)
    }

    @Test func anUnansweredRing_isMissed_andTheCalleeIsWokenByPush() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let fake = try PushHarness.running
        let token = try await PushTests.register(pair.callee, pair.members)
        let callerToken = try await PushTests.register(pair.caller, pair.members)
        let calleeRealtime = try await RealtimeProbe.open(pair.members.realtime[0], token: pair.callee.token)
        defer { calleeRealtime.cancel() }
        let started = ContinuousClock.now
        let caller = try await CallProbe.ring(pair.calls(1), token: pair.caller.token, conversation: pair.conversation)
        defer { caller.cancel() }
        let ringing = try await caller.firstCall { _ in true }

        let pushes = try await fake.waitFor(token) { $0.contains { $0.category == "call" } }
        let push = try #require(pushes.first { $0.category == "call" })
        #expect(push.topic == "com.example.elite")
        #expect(push.pushType == "alert")
        #expect(push.priority == "10")
        #expect(push.collapseID == "call-\(ringing.callID)")
        #expect(push.expiration == String(ringing.ringDeadline?.seconds ?? -1))
        #expect(push.aps["interruption-level"]?.stringValue == "time-sensitive")
        #expect(push.payload["call_id"]?.stringValue == ringing.callID)
        #expect(push.payload["caller_id"]?.stringValue == pair.caller.id)
        #expect(push.payload["deep_link"]?.stringValue == "elite://call/\(ringing.callID)")
        #expect(push.status == 200)

        // Nobody answers: the server ends the ring at its deadline.
        let missed = try await caller.firstCall(timeout: .seconds(10)) { $0.state == .missed }
        #expect(ContinuousClock.now - started >= CallServicesTrait.ring - .milliseconds(300))
        #expect(missed.endedBy.isEmpty)
        #expect(try await caller.end().code == .ok)
        try await calleeRealtime.first { event in
            if case .callUpdated(let updated)? = event.event { updated.call?.state == .missed } else { false }
        }
        // The missed call replaces the ringing one on the device.
        let after = try await fake.waitFor(token) { $0.filter { $0.category == "call" }.count == 2 }
        let missedPush = try #require(after.last { $0.category == "call" })
        #expect(missedPush.collapseID == "call-\(ringing.callID)")
        #expect(missedPush.aps["alert"]?.objectValue?["title"]?.stringValue == "Missed video call")
        // The caller's own devices were never rung.
        #expect(!fake.requests(to: callerToken).contains { $0.category == "call" })
        // A joiner after the end is shown the end.
        let late = try await CallProbe.join(pair.calls(0), token: pair.callee.token, call: ringing.callID)
        #expect(late.states == [.missed])
        #expect(try await late.end().code == .ok)
    }

    /// Registers a fresh APNs sandbox token of `kind` for `member`; returns it.
    static func register(_ member: Member, kind: Devices.PushTokenKind, device: String,
                         _ members: MessagingMembers) async throws -> String {
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        var request = Devices.RegisterPushTokenRequest()
        request.token = token
        request.platform = .apns
        request.environment = .sandbox
        request.deviceID = device
        request.kind = kind
        _ = try await DevicesClient(client: members.identity.client).registerPushToken(request, options: member.bearer)
        return token
    }

    @Test func aCalleeWithAPushKitToken_isRungByVoIPPush_andToldOfTheMissedCallByAlert() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let fake = try PushHarness.running
        let alert = try await Self.register(pair.callee, kind: .alert, device: "phone", pair.members)
        let voip = try await Self.register(pair.callee, kind: .voip, device: "phone", pair.members)
        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        defer { caller.cancel() }
        let ringing = try await caller.firstCall { _ in true }
        let rung = try #require(try await fake.waitFor(voip) { !$0.isEmpty }.first)
        #expect(rung.pushType == "voip" && rung.topic == "com.example.elite.voip" && rung.priority == "10")
        #expect(rung.collapseID == "call-\(ringing.callID)" && rung.payload["call_id"]?.stringValue == ringing.callID)
        #expect(rung.status == 200)
        // The caller hangs up first: the missed call goes to the alert token, the ring nowhere else.
        try await caller.send(.hangUp(.init()))
        let missed = try #require(try await fake.waitFor(alert) { $0.contains { $0.category == "call" } }.first { $0.category == "call" })
        #expect(missed.pushType == "alert" && missed.topic == "com.example.elite")
        #expect(missed.aps["alert"]?.objectValue?["title"]?.stringValue == "Missed video call")
        #expect(fake.requests(to: alert).filter { $0.category == "call" }.count == 1)
        #expect(fake.requests(to: voip).count == 1)
    }

    @Test func aDroppedStream_endsTheCallAfterTheGrace_unlessItComesBack() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        defer { caller.cancel() }
        let id = try await caller.firstCall { _ in true }.callID
        let callee = try await CallProbe.join(pair.calls(1), token: pair.callee.token, call: id)
        try await callee.send(.accept(.init()))
        try await caller.firstCall { $0.state == .accepted }

        try await caller.send(Self.ice(1))
        #expect(try await callee.signals(count: 1).map(\.sequence) == [1])
        try await pair.members.waitUntil("the callee's receipt is recorded") {
            try await pair.members.admin.withConnection { connection in
                try await connection.query("SELECT callee_read_through FROM messaging.calls WHERE id = $1::uuid",
                                           [.text(id)])[0].decode(0, as: Int32.self) == 1
            }
        }
        // The callee's connection drops; it comes back within the grace on the other instance
        // and receives what the caller sent meanwhile, and only that.
        callee.cancel()
        try await caller.send(Self.ice(2))
        try await Task.sleep(for: .milliseconds(300))
        let back = try await CallProbe.join(pair.calls(0), token: pair.callee.token, call: id)
        defer { back.cancel() }
        #expect(try await back.signals(count: 1).map(\.sequence) == [2])
        // Still on after more than the grace.
        try await Task.sleep(for: CallServicesTrait.grace + .milliseconds(500))
        #expect(back.states == [.accepted] && caller.states == [.ringing, .accepted])
        #expect(back.signals.map(\.sequence) == [2])

        // Dropped for good: the call ends, by nobody.
        let dropped = ContinuousClock.now
        back.cancel()
        let ended = try await caller.firstCall(timeout: .seconds(10)) { $0.state == .ended }
        #expect(ended.endedBy.isEmpty)
        #expect(ContinuousClock.now - dropped >= CallServicesTrait.grace - .milliseconds(300))
        #expect(try await caller.end().code == .ok)
    }

    @Test func aCallersHangUpWhileRinging_cancelsIt() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        let id = try await caller.firstCall { _ in true }.callID
        let callee = try await CallProbe.join(pair.calls(1), token: pair.callee.token, call: id)
        try await caller.send(.hangUp(.init()))
        for side in [caller, callee] {
            let cancelled = try await side.firstCall { $0.state == .cancelled }
            #expect(cancelled.endedBy == pair.caller.id)
            #expect(try await side.end().code == .ok)
        }
        // The conversation is free for a new call.
        let next = try await CallProbe.ring(pair.calls(1), token: pair.caller.token, conversation: pair.conversation)
        defer { next.cancel() }
        #expect(try await next.firstCall { _ in true }.callID != id)
    }

    @Test func anAcceptRacingAHangUp_endsTheCallTheSameWayForBoth() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        let id = try await caller.firstCall { _ in true }.callID
        let callee = try await CallProbe.join(pair.calls(1), token: pair.callee.token, call: id)
        async let accept: Void = callee.send(.accept(.init()))
        async let hangUp: Void = caller.send(.hangUp(.init()))
        _ = try await (accept, hangUp)
        for side in [caller, callee] { _ = try await side.end() }
        // Either the hang-up came first (cancelled; the late accept is refused) or the accept did
        // (accepted, then ended by the caller): both sides saw the same end.
        let last = try #require(caller.states.last)
        #expect(callee.states.last == last || callee.states.last == .ringing)
        #expect([.cancelled, .ended].contains(last))
        let stored = try await pair.members.admin.withConnection { connection in
            try await connection.query("SELECT state, ended_by::text FROM messaging.calls WHERE id = $1::uuid", [.text(id)])[0]
        }
        #expect(try stored.decode(0, as: Int16.self) == Int16(last.rawValue))
        #expect(try stored.decode(1, as: String?.self) == pair.caller.id)
        let calleeEnd = try await callee.end()
        if last == .cancelled {
            #expect(calleeEnd.code == .ok || calleeEnd.reason == "CALL_WRONG_STATE")
        } else {
            #expect(calleeEnd.code == .ok && callee.states.last == .ended)
        }
    }

    @Test(arguments: [("free", "ÉLITE"), ("plus", "ÉLITE+")])
    func aCallerWithoutVideoCalls_isRefused_namingTheTier(tier: String, displayName: String) async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let base = try await members.join("elite")
        let caller = tier == "free" ? base : try await members.grantTier(tier, to: base)
        let callee = try await members.grantTier("black", to: try await members.join("elite"))
        let conversation = try await members.match(caller, callee)
        let refusal: RPCError
        do {
            let probe = try await CallProbe.ring(CallsClient(client: members.messaging[0].client), token: caller.token,
                                                 conversation: conversation)
            probe.cancel()
            Issue.record("a \(tier) caller rang")
            return
        } catch let error as RPCError {
            refusal = error
        }
        #expect(refusal.code == .permissionDenied && refusal.reason == "VIDEO_CALLS_NOT_IN_TIER")
        #expect(refusal.details["tier"] == tier && refusal.details["tier_display_name"] == displayName)
        #expect(refusal.message.contains(displayName))
        // The callee's tier does not matter: the BLACK member calls the other.
        let probe = try await CallProbe.ring(CallsClient(client: members.messaging[1].client), token: callee.token,
                                             conversation: conversation)
        defer { probe.cancel() }
        #expect(try await probe.firstCall { _ in true }.state == .ringing)
    }

    @Test func someoneOutsideTheMatch_isRefused() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let outsider = try await pair.members.grantTier("black", to: try await pair.members.join("elite"))
        let ring = await reason {
            _ = try await CallProbe.ring(pair.calls(0), token: outsider.token, conversation: pair.conversation)
        }
        #expect(ring?.code == .permissionDenied && ring?.reason == "NOT_A_PARTICIPANT")
        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        defer { caller.cancel() }
        let id = try await caller.firstCall { _ in true }.callID
        let join = await reason { _ = try await CallProbe.join(pair.calls(1), token: outsider.token, call: id) }
        #expect(join?.code == .permissionDenied && join?.reason == "NOT_IN_CALL")
        let unknown = await reason {
            _ = try await CallProbe.join(pair.calls(1), token: outsider.token, call: UUID().uuidString)
        }
        #expect(unknown?.code == .notFound && unknown?.reason == "CALL_NOT_FOUND")
        let malformed = await reason { _ = try await CallProbe.join(pair.calls(1), token: outsider.token, call: "nope") }
        #expect(malformed?.code == .invalidArgument && malformed?.reason == "INVALID_CALL_ID")
        // A stream must start by ringing or joining.
        let first = await reason {
            let call = try await pair.calls(0).signal(options: .bearer(pair.caller.token))
            var request = Calls.SignalRequest()
            request.action = .accept(.init())
            try await call.send(request)
            for try await _ in call {}
            let status = await call.status()
            if status.code != .ok { throw status }
        }
        #expect(first?.code == .invalidArgument && first?.reason == "FIRST_MESSAGE_RING_OR_JOIN")
    }

    @Test func aBlock_endsTheCall_andNoCallFollowsAnUnmatchOrABlock() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        defer { caller.cancel() }
        let id = try await caller.firstCall { _ in true }.callID
        let callee = try await CallProbe.join(pair.calls(1), token: pair.callee.token, call: id)
        defer { callee.cancel() }
        try await callee.send(.accept(.init()))
        try await caller.firstCall { $0.state == .accepted }
        _ = try await pair.members.safety.block(.init(accountID: pair.caller.id), options: pair.callee.bearer)
        for side in [caller, callee] {
            #expect(try await side.firstCall { $0.state == .ended }.endedBy.isEmpty)
        }
        let blocked = await reason {
            _ = try await CallProbe.ring(pair.calls(1), token: pair.caller.token, conversation: pair.conversation)
        }
        #expect(blocked?.code == .failedPrecondition && blocked?.reason == "CONVERSATION_CLOSED")

        let other = try await pair.members.join("elite")
        let unmatched = try await pair.members.match(pair.caller, other)
        _ = try await pair.members.discovery.unmatch(.init(matchID: unmatched), options: other.bearer)
        try await pair.members.waitUntil("the conversation closes") {
            try await pair.members.messaging[0].getConversation(.init(conversationID: unmatched), options: other.bearer).state
                == .closed
        }
        let afterUnmatch = await reason {
            _ = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: unmatched)
        }
        #expect(afterUnmatch?.code == .failedPrecondition && afterUnmatch?.reason == "CONVERSATION_CLOSED")
    }

    @Test func oversizedAndTooManySignals_areRefused_theCallGoesOn() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let caller = try await CallProbe.ring(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        let id = try await caller.firstCall { _ in true }.callID
        let callee = try await CallProbe.join(pair.calls(1), token: pair.callee.token, call: id)
        defer { callee.cancel() }
        try await callee.send(.accept(.init()))
        try await caller.firstCall { $0.state == .accepted }
        try await caller.send(Self.offer(String(repeating: "a", count: 64 * 1024 + 1)))
        let sdp = try await caller.end()
        #expect(sdp.code == .invalidArgument && sdp.reason == "SIGNAL_TOO_LARGE" && sdp.details["limit"] == "65536")

        let again = try await CallProbe.join(pair.calls(1), token: pair.caller.token, call: id)
        try await again.send(Self.offer(String(repeating: "a", count: 64 * 1024)))
        try await again.send(.iceCandidate(Calls.IceCandidate(candidate: String(repeating: "c", count: 1025))))
        let candidate = try await again.end()
        #expect(candidate.code == .invalidArgument && candidate.reason == "SIGNAL_TOO_LARGE" && candidate.details["limit"] == "1024")
        let empty = try await CallProbe.join(pair.calls(1), token: pair.caller.token, call: id)
        try await empty.send(Self.offer(""))
        #expect(try await empty.end().reason == "EMPTY_SIGNAL")

        // The largest offer went through; the call goes on, up to 40 signals (this stack's limit).
        let last = try await CallProbe.join(pair.calls(0), token: pair.caller.token, call: id)
        defer { last.cancel() }
        for n in 2...40 { try await last.send(Self.ice(n)) }
        try await last.send(Self.ice(41))
        let tooMany = try await last.end()
        #expect(tooMany.code == .resourceExhausted && tooMany.reason == "TOO_MANY_SIGNALS" && tooMany.details["limit"] == "40")
        let received = try await callee.signals(count: 40)
        #expect(received.count == 40 && received.map(\.sequence) == Array(1...40))
        if case .offer(let offer)? = received.first?.event { #expect(offer.sdp.utf8.count == 64 * 1024) } else {
            Issue.record("the first signal is not the offer")
        }
    }

    @Test func oneCallAtATime_perConversation_andPerPerson() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let members = pair.members
        let callee = try await members.grantTier("black", to: pair.callee)
        let third = try await members.grantTier("black", to: try await members.join("elite"))
        let withCaller = try await members.match(third, pair.caller)
        let withCallee = try await members.match(callee, third)

        // Both sides BLACK, both ringing at once: exactly one call starts.
        async let first = Self.tryRing(pair.calls(0), token: pair.caller.token, conversation: pair.conversation)
        async let second = Self.tryRing(pair.calls(1), token: callee.token, conversation: pair.conversation)
        let outcomes = await [first, second]
        let winners = outcomes.compactMap { try? $0.get() }
        defer { for probe in winners { probe.cancel() } }
        #expect(winners.count == 1)
        let id = try #require(try await winners.first?.firstCall { _ in true }.callID)
        let refusals = outcomes.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(refusals.map(\.reason) == ["CALL_IN_PROGRESS"] && refusals.first?.details["call_id"] == id)

        // A third person calling either of them finds them busy; either of them calling a third is busy too.
        let busy = await reason { _ = try await CallProbe.ring(pair.calls(0), token: third.token, conversation: withCaller) }
        #expect(busy?.code == .failedPrecondition && busy?.reason == "CALLEE_BUSY")
        let callerBusy = await reason { _ = try await CallProbe.ring(pair.calls(1), token: callee.token, conversation: withCallee) }
        #expect(callerBusy?.code == .failedPrecondition && callerBusy?.reason == "CALLER_BUSY")
        let live = try await members.admin.withConnection { connection in
            try await connection.query("""
                SELECT count(*)::int8 FROM messaging.calls
                WHERE state IN (1, 2) AND (caller_id = ANY($1::uuid[]) OR callee_id = ANY($1::uuid[]))
                """, [.textArray([pair.caller.id, callee.id, third.id])])[0].decode(0, as: Int64.self)
        }
        #expect(live == 1)
    }

    static func tryRing(_ client: CallsClient, token: String, conversation: String) async -> Result<CallProbe, RPCError> {
        do {
            return .success(try await CallProbe.ring(client, token: token, conversation: conversation))
        } catch {
            return .failure(error as? RPCError ?? RPCError(code: .unknown, message: "\(error)"))
        }
    }
}
