public import ContractTypes
public import RPCCore
import Synchronization

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

    /// Opens the side's stream with `first` and waits for the call; an access token refused on
    /// the way is refreshed once. Never resent otherwise: a ring is not idempotent. Signal on a
    /// transport that carries bidirectional streams; Attach (its messages then go by Send) on
    /// one that does not.
    private func open(_ first: Calls.SignalRequest.Action) async throws(GatewayError) -> CallSession {
        var refreshed = false
        while true {
            var token = ""
            do {
                token = try await runner.sessions.accessToken()
                let stream: CallStream
                if runner.transport.carriesBidirectionalStreams {
                    let call = try await CallsClient(client: runner.transport).signal(options: .bearer(token))
                    stream = CallStream(link: .signal(call), runner: runner)
                    var request = Calls.SignalRequest()
                    request.action = first
                    try await call.send(request)
                } else {
                    var request = Calls.AttachRequest()
                    switch first {
                    case .ring(let ring): request.role = .ring(ring)
                    case .join(let join): request.role = .join(join)
                    default: throw RPCError(code: .internal, message: "a call's stream starts with a ring or a join")
                    }
                    let call = try await CallsClient(client: runner.transport).attach(request, options: .bearer(token))
                    stream = CallStream(link: .attach(call), runner: runner)
                }
                var responses = stream.makeResponseIterator()
                guard let response = try await responses.next() else { throw await stream.status() }
                guard case .call(let state)? = response.event else {
                    throw RPCError(code: .internal, message: "the call's stream did not start with the call")
                }
                stream.callID = state.callID
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
/// status: the call goes on, `join` it again). Dropping the session drops the stream. On a
/// transport without bidirectional streams (gRPC-Web) the session is Calls/Attach's stream and
/// each action one Calls/Send, sent in the order called: a refused one also throws from its
/// method, and the actions after it are not sent.
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
    public func close() { stream.close() }

    private func send(_ action: Calls.SignalRequest.Action) async throws(GatewayError) {
        do { try await stream.send(action) } catch { throw RPCError.gateway(error) }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(stream: stream, inner: stream.makeResponseIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        let stream: CallStream
        var inner: CallStream.ResponseIterator

        public mutating func next() async throws -> Calls.SignalResponse? {
            do {
                if let response = try await inner.next() { return response }
            } catch {
                if let refusal = stream.refusal { throw refusal }
                throw RPCError.gateway(error)
            }
            let status = await stream.status()
            guard status.code == .ok else { throw status }
            return nil
        }
    }
}

/// The open stream of a session, cancelled once no session or iterator holds it: Signal's, or
/// Attach's with the side's messages sent one at a time by Send, in the order the app sent
/// them; a refused Send ends the session with its status, as a refused message ends Signal's.
final class CallStream: Sendable {
    enum Link: Sendable {
        case signal(StreamingCall<Calls.SignalRequest, Calls.SignalResponse>)
        case attach(StreamingCall<Calls.AttachRequest, Calls.SignalResponse>)
    }

    private struct State {
        var callID = ""
        /// The last Send started: the next one waits for it.
        var tail: Task<Void, any Error>?
        /// Why the session ended from this side (a refused Send, or `close`).
        var refusal: RPCError?
    }

    let link: Link
    let runner: CallRunner
    private let state = Mutex(State())

    init(link: Link, runner: CallRunner) {
        self.link = link
        self.runner = runner
    }

    deinit { cancel() }

    var callID: String {
        get { state.withLock { $0.callID } }
        set { state.withLock { $0.callID = newValue } }
    }

    var refusal: RPCError? { state.withLock { $0.refusal } }

    func status() async -> RPCError {
        if let refusal { return refusal }
        switch link {
        case .signal(let call): return await call.status()
        case .attach(let call): return await call.status()
        }
    }

    func close() {
        state.withLock { state in
            if state.refusal == nil { state.refusal = RPCError(code: .cancelled, message: "the call's session was closed") }
        }
        cancel()
    }

    private func cancel() {
        switch link {
        case .signal(let call): call.cancel()
        case .attach(let call): call.cancel()
        }
    }

    /// Sends one of the side's messages: on Signal's stream, or by Send after the previous one
    /// was answered (the server numbers signals in the order it applies them).
    func send(_ action: Calls.SignalRequest.Action) async throws {
        if case .signal(let call) = link {
            var request = Calls.SignalRequest()
            request.action = action
            try await call.send(request)
            return
        }
        var request = Calls.SendRequest()
        switch action {
        case .accept(let accept): request.action = .accept(accept)
        case .decline(let decline): request.action = .decline(decline)
        case .hangUp(let hangUp): request.action = .hangUp(hangUp)
        case .offer(let description): request.action = .offer(description)
        case .answer(let description): request.action = .answer(description)
        case .iceCandidate(let candidate): request.action = .iceCandidate(candidate)
        case .ring, .join: throw RPCError(code: .internal, message: "a ring or a join starts a session")
        }
        let task = state.withLock { state -> Task<Void, any Error> in
            request.callID = state.callID
            let previous = state.tail
            let task = Task { [request] in
                _ = await previous?.result
                if let refusal = self.refusal { throw refusal }
                do {
                    _ = try await self.runner.run(CallsAPI.Methods.send, deadline: nil) { [runner] options in
                        try await CallsClient(client: runner.transport).send(request, options: options)
                    }
                } catch {
                    let failure = RPCError.gateway(error)
                    self.state.withLock { if $0.refusal == nil { $0.refusal = failure } }
                    self.cancel()
                    throw failure
                }
            }
            state.tail = task
            return task
        }
        try await task.value
    }

    func makeResponseIterator() -> ResponseIterator {
        switch link {
        case .signal(let call): ResponseIterator(signal: call.makeAsyncIterator())
        case .attach(let call): ResponseIterator(attach: call.makeAsyncIterator())
        }
    }

    /// The responses of either stream.
    struct ResponseIterator {
        var signal: StreamingCall<Calls.SignalRequest, Calls.SignalResponse>.AsyncIterator?
        var attach: StreamingCall<Calls.AttachRequest, Calls.SignalResponse>.AsyncIterator?

        init(signal: StreamingCall<Calls.SignalRequest, Calls.SignalResponse>.AsyncIterator) { self.signal = signal }

        init(attach: StreamingCall<Calls.AttachRequest, Calls.SignalResponse>.AsyncIterator) { self.attach = attach }

        mutating func next() async throws -> Calls.SignalResponse? {
            if signal != nil { return try await signal!.next() }
            return try await attach!.next()
        }
    }
}

extension CallsAPI {
    enum Methods {
        /// Not retried: a signal sent twice is relayed twice.
        static let send = GatewayMethod("Calls/Send", .write, .session)
    }
}

extension RPCError {
    /// The reason as the calls contract types it (`.videoCallsNotInTier`, `.calleeBusy`…).
    public var callReason: Calls.CallErrorReason? { reason(as: Calls.CallErrorReason.self) }
}
