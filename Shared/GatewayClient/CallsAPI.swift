public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// Video calls' signaling (`rendezvous.messaging.v1.Calls`).
    public var calls: CallsAPI { CallsAPI(runner: runner) }
}

/// Video calls as an app places and answers them. The server relays the WebRTC offer, answer and
/// ICE candidates between the two members of a match and keeps the call's state; the media flows
/// peer to peer. Only a caller whose tier has video calling may ring (else PERMISSION_DENIED
/// `VIDEO_CALLS_NOT_IN_TIER`, `error.details["tier_display_name"]` naming the tier); refusals
/// carry `error.callReason` or, for the conversation, `error.messagingReason`.
public struct CallsAPI: Sendable {
    let runner: CallRunner

    /// Rings the other member of `conversationID`: returns once the call rings. The callee
    /// learns of it on their realtime stream (`CallUpdated`, state RINGING) and by push.
    public func ring(conversationID: String) async throws(GatewayError) -> CallSession {
        try await open(.ring(Calls.CallRing(conversationID: conversationID)))
    }

    /// Attaches to call `callID`: the callee answering an incoming call (then `accept` or
    /// `decline`), or either side coming back after its connection dropped (within the server's
    /// grace; the signals sent meanwhile follow).
    public func join(callID: String) async throws(GatewayError) -> CallSession {
        try await open(.join(Calls.CallJoin(callID: callID)))
    }

    /// Opens the stream with `first` and waits for the call; an access token refused on the
    /// way is refreshed once. Never resent otherwise: a ring is not idempotent.
    private func open(_ first: Calls.SignalRequest.Action) async throws(GatewayError) -> CallSession {
        var refreshed = false
        while true {
            var token = ""
            do {
                token = try await runner.sessions.accessToken()
                let call = try await CallsClient(client: runner.transport).signal(options: .bearer(token))
                let stream = CallStream(call: call)
                var request = Calls.SignalRequest()
                request.action = first
                try await call.send(request)
                var responses = call.makeAsyncIterator()
                guard let response = try await responses.next() else { throw await call.status() }
                guard case .call(let state)? = response.event else {
                    throw RPCError(code: .internal, message: "the call's stream did not start with the call")
                }
                return CallSession(call: state, stream: stream)
            } catch let error as RPCError where error.code == .unauthenticated && !refreshed && !token.isEmpty {
                refreshed = true
                do { _ = try await runner.sessions.refreshed(after: token) } catch { throw RPCError.gateway(error) }
            } catch {
                throw RPCError.gateway(error)
            }
        }
    }
}

/// One side of one call: send the side's actions and signals, iterate what the server sends —
/// the call's changes of state (`.call`) and the other side's signals (`.offer`, `.answer`,
/// `.iceCandidate`) in the order they were sent. Iteration ends when the call ends (after its
/// final state) and throws when the stream fails (a refused message ends the stream with its
/// status: the call goes on, `join` it again). Dropping the session drops the stream.
public struct CallSession: AsyncSequence, Sendable {
    public typealias Element = Calls.SignalResponse

    /// The call as it stood when the stream opened.
    public let call: Calls.Call
    let stream: CallStream

    /// Accepts the ringing call (the callee).
    public func accept() async throws(GatewayError) { try await send(.accept(Calls.CallAccept())) }

    /// Declines the ringing call (the callee).
    public func decline() async throws(GatewayError) { try await send(.decline(Calls.CallDecline())) }

    /// Ends the call: the caller's hang-up while ringing cancels it, the callee's declines it.
    public func hangUp() async throws(GatewayError) { try await send(.hangUp(Calls.CallHangUp())) }

    /// Sends an SDP offer (at most 64 KiB).
    public func sendOffer(sdp: String) async throws(GatewayError) {
        try await send(.offer(Calls.SessionDescription(sdp: sdp)))
    }

    /// Sends an SDP answer (at most 64 KiB; the callee after accepting).
    public func sendAnswer(sdp: String) async throws(GatewayError) {
        try await send(.answer(Calls.SessionDescription(sdp: sdp)))
    }

    /// Sends one ICE candidate (the candidate line at most 1 KiB).
    public func send(candidate: Calls.IceCandidate) async throws(GatewayError) {
        try await send(.iceCandidate(candidate))
    }

    /// Drops the stream without hanging up (the server ends the call after its grace unless the
    /// side joins again).
    public func close() { stream.call.cancel() }

    private func send(_ action: Calls.SignalRequest.Action) async throws(GatewayError) {
        var request = Calls.SignalRequest()
        request.action = action
        do { try await stream.call.send(request) } catch { throw RPCError.gateway(error) }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(stream: stream, inner: stream.call.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        let stream: CallStream
        var inner: StreamingCall<Calls.SignalRequest, Calls.SignalResponse>.AsyncIterator

        public mutating func next() async throws -> Calls.SignalResponse? {
            do {
                if let response = try await inner.next() { return response }
            } catch {
                throw RPCError.gateway(error)
            }
            let status = await stream.call.status()
            guard status.code == .ok else { throw status }
            return nil
        }
    }
}

/// The open stream of a session, cancelled once no session or iterator holds it.
final class CallStream: Sendable {
    let call: StreamingCall<Calls.SignalRequest, Calls.SignalResponse>

    init(call: StreamingCall<Calls.SignalRequest, Calls.SignalResponse>) { self.call = call }

    deinit { call.cancel() }
}

extension RPCError {
    /// The reason as the calls contract types it (`.videoCallsNotInTier`, `.calleeBusy`…).
    public var callReason: Calls.CallErrorReason? { reason(as: Calls.CallErrorReason.self) }
}
