import Contracts
import Foundation
import RPC
import Testing
import TestSupport

/// The half-duplex form of call signaling (Attach and Send, for gRPC-Web): the same calls, rules
/// and relaying as Signal, on the same stack (`CallTests`' suite: two messaging instances).
extension CallTests {
    /// One Send of `action` for call `id` as `token`.
    @discardableResult
    static func send(_ client: CallsClient, token: String, call id: String,
                     _ action: Calls.SignalRequest.Action?) async throws -> Calls.SendResponse {
        var request = Calls.SendRequest()
        request.callID = id
        switch action {
        case .accept(let accept)?: request.action = .accept(accept)
        case .decline(let decline)?: request.action = .decline(decline)
        case .hangUp(let hangUp)?: request.action = .hangUp(hangUp)
        case .offer(let description)?: request.action = .offer(description)
        case .answer(let description)?: request.action = .answer(description)
        case .iceCandidate(let candidate)?: request.action = .iceCandidate(candidate)
        case .ring?, .join?, nil: break
        }
        return try await client.send(request, options: .bearer(token))
    }

    /// The status `body` threw, or nil.
    static func refusal(_ body: () async throws -> Void) async -> RPCError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? RPCError ?? RPCError(code: .unknown, message: "\(error)")
        }
    }

    @Test func attachAndSend_ringAnswerRelayInOrderOnce_acrossInstances_andHangUpEndsBoth() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let caller = try await CallProbe.attach(pair.calls(0), token: pair.caller.token,
                                                .ring(Calls.CallRing(conversationID: pair.conversation)))
        defer { caller.cancel() }
        let ringing = try await caller.firstCall { $0.state == .ringing }
        #expect(ringing.callerID == pair.caller.id && ringing.calleeID == pair.callee.id)
        let id = ringing.callID
        // The caller's Sends go to the other instance than its stream; each is numbered.
        var sequences: [Int64] = []
        for action in [Self.offer("v=0 offer")] + (1...3).map(Self.ice) {
            sequences.append(try await Self.send(pair.calls(1), token: pair.caller.token, call: id, action).sequence)
        }
        #expect(sequences == [1, 2, 3, 4])

        let callee = try await CallProbe.attach(pair.calls(1), token: pair.callee.token, .join(Calls.CallJoin(callID: id)))
        defer { callee.cancel() }
        try await callee.firstCall { $0.state == .ringing }
        let fromCaller = try await callee.signals(count: 4)
        #expect(fromCaller.map(\.event) == ([Self.offer("v=0 offer")] + (1...3).map(Self.ice)).map(Self.relayed))
        #expect(fromCaller.map(\.sequence) == [1, 2, 3, 4])

        #expect(try await Self.send(pair.calls(0), token: pair.callee.token, call: id, .accept(.init())).sequence == 0)
        let accepted = try await caller.firstCall { $0.state == .accepted }
        #expect(accepted.acceptedAt != nil)
        try await callee.firstCall { $0.state == .accepted }
        for action in [Self.answer("v=0 answer")] + (4...5).map(Self.ice) {
            try await Self.send(pair.calls(0), token: pair.callee.token, call: id, action)
        }
        let fromCallee = try await caller.signals(count: 3)
        #expect(fromCallee.map(\.event) == ([Self.answer("v=0 answer")] + (4...5).map(Self.ice)).map(Self.relayed))
        #expect(fromCallee.map(\.sequence) == [5, 6, 7])

        try await Self.send(pair.calls(1), token: pair.caller.token, call: id, .hangUp(.init()))
        for side in [caller, callee] {
            let ended = try await side.firstCall { $0.state == .ended }
            #expect(ended.endedBy == pair.caller.id)
            #expect(try await side.end().code == .ok)
        }
        // Each signal reached the other side once; nobody got their own.
        #expect(caller.signals.count == 3 && callee.signals.count == 4)
        #expect(caller.states == [.ringing, .accepted, .ended] && callee.states == [.ringing, .accepted, .ended])
        // A hang-up of the ended call is no error; anything else is the wrong state.
        try await Self.send(pair.calls(0), token: pair.callee.token, call: id, .hangUp(.init()))
        let late = await Self.refusal { try await Self.send(pair.calls(0), token: pair.caller.token, call: id, Self.ice(9)) }
        #expect(late?.code == .failedPrecondition && late?.reason == "CALL_WRONG_STATE")
    }

    @Test func sendsFromBothSidesAtOnce_onBothInstances_eachArriveOnceInTheOrderSent() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let caller = try await CallProbe.attach(pair.calls(0), token: pair.caller.token,
                                                .ring(Calls.CallRing(conversationID: pair.conversation)))
        defer { caller.cancel() }
        let id = try await caller.firstCall { _ in true }.callID
        let callee = try await CallProbe.attach(pair.calls(1), token: pair.callee.token, .join(Calls.CallJoin(callID: id)))
        defer { callee.cancel() }
        try await Self.send(pair.calls(0), token: pair.callee.token, call: id, .accept(.init()))
        try await caller.firstCall { $0.state == .accepted }

        // Each side sends its candidates one after another, through alternating instances,
        // while the other side does the same.
        async let fromCaller: [Int64] = {
            var sequences: [Int64] = []
            for n in 1...6 {
                sequences.append(try await Self.send(pair.calls(n % 2), token: pair.caller.token, call: id, Self.ice(n)).sequence)
            }
            return sequences
        }()
        async let fromCallee: [Int64] = {
            var sequences: [Int64] = []
            for n in 11...16 {
                sequences.append(try await Self.send(pair.calls(n % 2), token: pair.callee.token, call: id, Self.ice(n)).sequence)
            }
            return sequences
        }()
        let (callerSequences, calleeSequences) = try await (fromCaller, fromCallee)
        #expect(Set(callerSequences + calleeSequences) == Set(1...12))
        let atCallee = try await callee.signals(count: 6)
        let atCaller = try await caller.signals(count: 6)
        #expect(atCallee.map(\.event) == (1...6).map(Self.ice).map(Self.relayed))
        #expect(atCallee.map(\.sequence) == callerSequences)
        #expect(atCaller.map(\.event) == (11...16).map(Self.ice).map(Self.relayed))
        #expect(atCaller.map(\.sequence) == calleeSequences)
        try await Self.send(pair.calls(1), token: pair.callee.token, call: id, .hangUp(.init()))
        for side in [caller, callee] { #expect(try await side.end().code == .ok) }
        #expect(callee.signals.count == 6 && caller.signals.count == 6)
    }

    @Test func send_isRefused_withoutAnAttachedStream_toOthers_andWithoutAnAction_whileTheCallGoesOn() async throws {
        let pair = try await Self.pair()
        defer { pair.members.close() }
        let stranger = try await pair.members.join("elite")
        let noRole = await Self.refusal { _ = try await CallProbe.attach(pair.calls(0), token: pair.caller.token, nil) }
        #expect(noRole?.code == .invalidArgument && noRole?.reason == "FIRST_MESSAGE_RING_OR_JOIN")

        let caller = try await CallProbe.attach(pair.calls(0), token: pair.caller.token,
                                                .ring(Calls.CallRing(conversationID: pair.conversation)))
        defer { caller.cancel() }
        let id = try await caller.firstCall { _ in true }.callID

        // The callee has not attached: its Send is refused and changes nothing.
        let unattached = await Self.refusal { try await Self.send(pair.calls(1), token: pair.callee.token, call: id, .accept(.init())) }
        #expect(unattached?.code == .failedPrecondition && unattached?.reason == "CALL_NOT_ATTACHED")
        // Nobody else may send or attach.
        let other = await Self.refusal { try await Self.send(pair.calls(1), token: stranger.token, call: id, Self.ice(1)) }
        #expect(other?.code == .permissionDenied && other?.reason == "NOT_IN_CALL")
        let otherAttach = await Self.refusal {
            _ = try await CallProbe.attach(pair.calls(1), token: stranger.token, .join(Calls.CallJoin(callID: id)))
        }
        #expect(otherAttach?.code == .permissionDenied && otherAttach?.reason == "NOT_IN_CALL")
        let badID = await Self.refusal { try await Self.send(pair.calls(0), token: pair.caller.token, call: "nope", Self.ice(1)) }
        #expect(badID?.code == .invalidArgument && badID?.reason == "INVALID_CALL_ID")
        let unknown = await Self.refusal {
            try await Self.send(pair.calls(0), token: pair.caller.token, call: UUID().uuidString, Self.ice(1))
        }
        #expect(unknown?.code == .notFound && unknown?.reason == "CALL_NOT_FOUND")
        let empty = await Self.refusal { try await Self.send(pair.calls(0), token: pair.caller.token, call: id, nil) }
        #expect(empty?.code == .invalidArgument && empty?.reason == "SEND_ACTION_MISSING")
        // Signal's rules hold: only the callee accepts; limits apply.
        let notCallee = await Self.refusal { try await Self.send(pair.calls(1), token: pair.caller.token, call: id, .accept(.init())) }
        #expect(notCallee?.code == .failedPrecondition && notCallee?.reason == "NOT_THE_CALLEE")
        let huge = await Self.refusal {
            try await Self.send(pair.calls(1), token: pair.caller.token, call: id,
                                Self.offer(String(repeating: "a", count: 64 * 1024 + 1)))
        }
        #expect(huge?.code == .invalidArgument && huge?.reason == "SIGNAL_TOO_LARGE")
        // A refused Send refuses that message only: the caller's stream and the call go on.
        #expect(!caller.ended)
        #expect(try await Self.send(pair.calls(1), token: pair.caller.token, call: id, Self.offer("v=0")).sequence == 1)

        // A Signal stream taking the caller's side over ends the Attach stream; Sends now go as it.
        let signal = try await CallProbe.join(pair.calls(1), token: pair.caller.token, call: id)
        defer { signal.cancel() }
        let takenOver = try await caller.end()
        #expect(takenOver.code == .aborted && takenOver.reason == "CALL_ATTACHED_ELSEWHERE")
        #expect(try await Self.send(pair.calls(0), token: pair.caller.token, call: id, Self.ice(2)).sequence == 2)

        // The side's stream drops: until it re-attaches, its Sends are refused.
        signal.cancel()
        let deadline = ContinuousClock.now + .seconds(5)
        var dropped: RPCError?
        while ContinuousClock.now < deadline {
            // Declining is never the caller's: refused either way, and changes nothing.
            dropped = await Self.refusal { try await Self.send(pair.calls(0), token: pair.caller.token, call: id, .decline(.init())) }
            if dropped?.reason != "NOT_THE_CALLEE" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(dropped?.code == .failedPrecondition && dropped?.reason == "CALL_NOT_ATTACHED")
    }
}
