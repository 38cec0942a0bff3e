import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.messaging.v1.Calls`: one side of one call per stream. The first message rings or
/// joins; then two tasks run until the call ends: one applies the side's messages (each in a
/// transaction under the call's row lock), the other sends the side what changed — the call's
/// state and the other side's signals after the side's read marker — whenever the call's
/// generation moves (`CallWakeups`), refreshing the side's presence at each heartbeat. Attach
/// and Send are the same two halves for transports without bidirectional streams: Attach runs
/// Signal's stream without its messages, Send applies one message through the same `apply` as
/// the side's attached stream. Rules are documented in calls.proto.
struct CallsService: CallsProvider {
    let pool: PostgresPool
    let tiers: TierCatalog
    let store: CallStore
    let wakeups: CallWakeups

    private var settings: CallSettings { store.settings }

    func signal(_ requests: RequestStream<Calls.SignalRequest>, writer: ResponseWriter<Calls.SignalResponse>,
                context: ServerCallContext) async throws {
        let caller = try context.requireAccount()
        // A draining server ends the signalling stream at once; the app attaches again (Attach)
        // within the call's grace for a dropped stream.
        context.endWhenServerDrains()
        var iterator = requests.makeAsyncIterator()
        guard let first = try await iterator.next() else { throw CallError.firstMessageRingOrJoin }
        let role: Calls.AttachRequest.Role
        switch first.action {
        case .ring(let ring): role = .ring(ring)
        case .join(let join): role = .join(join)
        default: throw CallError.firstMessageRingOrJoin
        }
        try await attached(role, caller: caller, writer: writer, context: context) { leg in
            var requests = requests.makeAsyncIterator()
            while let request = try await requests.next() { _ = try await apply(request.action, as: .leg(leg)) }
        }
    }

    /// Signal's first message and its response side; the side's later messages come by `send`.
    func attach(_ request: Calls.AttachRequest, writer: ResponseWriter<Calls.SignalResponse>,
                context: ServerCallContext) async throws {
        let caller = try context.requireAccount()
        context.endWhenServerDrains()  // as Signal's
        guard let role = request.role else { throw CallError.firstMessageRingOrJoin }
        try await attached(role, caller: caller, writer: writer, context: context, messages: nil)
    }

    /// One of Signal's later messages, applied as the side this account has attached.
    func send(_ request: Calls.SendRequest, context: ServerCallContext) async throws -> Calls.SendResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        guard let id = UUID(uuidString: request.callID) else { throw CallError.invalidCallID }
        let action: Calls.SignalRequest.Action
        switch request.action {
        case .accept(let accept): action = .accept(accept)
        case .decline(let decline): action = .decline(decline)
        case .hangUp(let hangUp): action = .hangUp(hangUp)
        case .offer(let description): action = .offer(description)
        case .answer(let description): action = .answer(description)
        case .iceCandidate(let candidate): action = .iceCandidate(candidate)
        case nil: throw CallError.sendActionMissing
        }
        var response = Calls.SendResponse()
        let sequence = try await apply(action, as: .account(call: id, app: caller.app, account: account))
        response.sequence = Int64(sequence ?? 0)
        return response
    }

    /// Rings or joins as `role`, then runs the side's stream until the call ends: the
    /// deliveries to `writer`, the token's expiry, and `messages` (Signal's later messages, run
    /// with the side's leg; a half-close leaves the deliveries running until the call ends).
    private func attached(_ role: Calls.AttachRequest.Role, caller: AuthenticatedAccount,
                          writer: ResponseWriter<Calls.SignalResponse>, context: ServerCallContext,
                          messages: (@Sendable (Leg) async throws -> Void)?) async throws {
        let account = try caller.accountUUID()
        let attachment = UUID.random()
        let (callID, side): (UUID, CallRow.Side)
        switch role {
        case .ring(let ring):
            callID = try await self.ring(ring, app: caller.app, tier: caller.tier, account: account, attachment: attachment)
            side = .caller
        case .join(let join):
            (callID, side) = try await self.join(join, app: caller.app, account: account, attachment: attachment)
        }
        wakeups.watch(callID)
        defer { wakeups.unwatch(callID) }
        let leg = Leg(call: callID, app: caller.app, account: account, side: side, attachment: attachment)
        let expiresAt = TokenExpiry.seconds(of: context)
        do {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                if let messages {
                    group.addTask {
                        try await messages(leg)
                        return false
                    }
                }
                group.addTask {
                    try await deliver(leg, to: writer)
                    return true
                }
                if let expiresAt {
                    group.addTask {
                        let left = Double(expiresAt) - Date().timeIntervalSince1970
                        if left > 0 { try await Task.sleep(for: .milliseconds(Int64(left * 1000))) }
                        throw MessagingError.tokenExpired
                    }
                }
                while let callEnded = try await group.next() {
                    if callEnded { break }
                }
                group.cancelAll()
            }
        } catch {
            await detach(leg)
            throw error
        }
        await detach(leg)
    }

    /// One side's stream on one call.
    struct Leg: Sendable {
        let call: UUID
        let app: String
        let account: UUID
        let side: CallRow.Side
        let attachment: UUID
    }

    /// Who a message comes from: a stream's leg (Signal), or an account applying it as the
    /// stream its side has attached (Send).
    enum Sender: Sendable {
        case leg(Leg)
        case account(call: UUID, app: String, account: UUID)

        var call: UUID {
            switch self {
            case .leg(let leg): leg.call
            case .account(let call, _, _): call
            }
        }

        var app: String {
            switch self {
            case .leg(let leg): leg.app
            case .account(_, let app, _): app
            }
        }

        var account: UUID {
            switch self {
            case .leg(let leg): leg.account
            case .account(_, _, let account): account
            }
        }
    }

    private func ring(_ ring: Calls.CallRing, app: String, tier: String, account: UUID,
                      attachment: UUID) async throws -> UUID {
        guard let conversation = UUID(uuidString: ring.conversationID) else { throw MessagingError.invalidConversationID }
        let allowance = try await tiers.videoCalling(app: app, tier: tier)
        let call = try await pool.withTransaction { connection in
            let access = try await ConversationStore.access(conversation, account: account, app: app, lock: false,
                                                            on: connection)
            // A tier without video calls hears so only from a conversation it may use.
            guard allowance.allowed else {
                throw CallError.videoCallsNotInTier(tier: allowance.tier, displayName: allowance.displayName)
            }
            guard !access.closed else { throw MessagingError.conversationClosed }
            return try await store.ring(conversation: conversation, app: app, caller: account, callee: access.other,
                                        attachment: attachment, on: connection)
        }
        wakeups.bump(call.id)
        return call.id
    }

    private func join(_ join: Calls.CallJoin, app: String, account: UUID,
                      attachment: UUID) async throws -> (UUID, CallRow.Side) {
        guard let id = UUID(uuidString: join.callID) else { throw CallError.invalidCallID }
        let side = try await pool.withTransaction { connection -> CallRow.Side in
            guard var call = try await store.load(id, app: app, lock: true, on: connection) else { throw CallError.notFound }
            guard let side = call.side(of: account) else { throw CallError.notInCall }
            if let outcome = call.overdue {
                call.end(outcome, by: nil)
                try await store.save(call, on: connection)
                try await store.announce(call, on: connection)
            } else if call.state.isLive {
                try await store.attach(&call, side: side, attachment: attachment, on: connection)
            }
            return side
        }
        wakeups.bump(id)
        return (id, side)
    }

    /// Applies one later message of a side (anything but a ring or a join), under the call's
    /// row lock; returns the signal's sequence (nil for accept, decline, hang-up).
    private func apply(_ action: Calls.SignalRequest.Action?, as sender: Sender) async throws -> Int32? {
        var signal = Calls.SignalResponse()
        switch action {
        case .offer(let description):
            try Self.check(description.sdp, limit: CallSettings.maxSDPBytes)
            signal.event = .offer(description)
        case .answer(let description):
            try Self.check(description.sdp, limit: CallSettings.maxSDPBytes)
            signal.event = .answer(description)
        case .iceCandidate(let candidate):
            try Self.check(candidate.candidate, limit: CallSettings.maxCandidateBytes)
            guard candidate.sdpMid.utf8.count <= CallSettings.maxTagBytes,
                  candidate.usernameFragment.utf8.count <= CallSettings.maxTagBytes else {
                throw CallError.signalTooLarge(limit: CallSettings.maxTagBytes)
            }
            signal.event = .iceCandidate(candidate)
        case .ring, .join, nil:
            throw CallError.firstMessageRingOrJoin
        case .accept, .decline, .hangUp:
            break
        }
        // A refusal after an overdue call was ended commits the ending, then refuses.
        let (sequence, refusal): (Int32?, CallError?) = try await pool.withTransaction { connection in
            guard var call = try await store.load(sender.call, app: sender.app, lock: true, on: connection) else {
                throw CallError.notFound
            }
            let side: CallRow.Side
            switch sender {
            case .leg(let leg):
                side = leg.side
                guard call.stream(of: side) == leg.attachment else { throw CallError.attachedElsewhere }
            case .account(_, _, let account):
                guard let own = call.side(of: account) else { throw CallError.notInCall }
                side = own
                guard call.stream(of: side) != nil || !call.state.isLive else { throw CallError.notAttached }
            }
            if let outcome = call.overdue {
                call.end(outcome, by: nil)
                try await store.save(call, on: connection)
                try await store.announce(call, on: connection)
                if case .hangUp? = action { return (nil, nil) }
                return (nil, CallError.wrongState(outcome))
            }
            switch action {
            case .accept:
                try call.accept(by: side)
            case .decline:
                try call.decline(by: side)
            case .hangUp:
                guard call.hangUp(by: side) else { return (nil, nil) }
            default:
                let sequence = try call.takeSignalSequence(by: side, limit: settings.maxSignals)
                try await store.addSignal(signal, call: call, sender: sender.account, sequence: sequence, on: connection)
                return (sequence, nil)
            }
            try await store.save(call, on: connection)
            try await store.announce(call, on: connection)
            return (nil, nil)
        }
        wakeups.bump(sender.call)
        if let refusal { throw refusal }
        return sequence
    }

    private static func check(_ text: String, limit: Int) throws(CallError) {
        guard !text.isEmpty else { throw .emptySignal }
        guard text.utf8.count <= limit else { throw .signalTooLarge(limit: limit) }
    }

    /// Sends the side the call's state whenever it changes and the other side's signals as
    /// they come, until the call ends (its final state is the last message).
    private func deliver(_ leg: Leg, to writer: ResponseWriter<Calls.SignalResponse>) async throws {
        var shown: CallRow.State?
        var lastRefresh = ContinuousClock.now
        while true {
            let seen = wakeups.generation(of: leg.call)
            let (call, signals) = try await pool.withConnection { connection in
                guard let call = try await store.load(leg.call, app: leg.app, lock: false, on: connection) else {
                    throw CallError.notFound
                }
                guard call.stream(of: leg.side) == leg.attachment || !call.state.isLive else {
                    throw CallError.attachedElsewhere
                }
                let signals = call.state.isLive
                    ? try await store.signals(of: leg.call, for: leg.account, after: call.readThrough(of: leg.side),
                                              on: connection)
                    : []
                return (call, signals)
            }
            if call.state != shown {
                var update = Calls.SignalResponse()
                update.event = .call(call.view)
                try await writer.write(update)
                shown = call.state
            }
            if !call.state.isLive { return }
            for signal in signals { try await writer.write(signal) }
            if !signals.isEmpty || ContinuousClock.now - lastRefresh >= settings.heartbeat {
                let readThrough = signals.last.map { Int32($0.sequence) } ?? call.readThrough(of: leg.side)
                let attached = try await pool.withConnection { connection in
                    try await store.refresh(leg.call, side: leg.side, attachment: leg.attachment, readThrough: readThrough,
                                            on: connection)
                }
                guard attached else { throw CallError.attachedElsewhere }
                lastRefresh = .now
            }
            await wakeups.wait(for: leg.call, after: seen, timeout: settings.heartbeat)
            try Task.checkCancellation()
        }
    }

    /// The stream ended without the call ending: the side has the grace to come back. Runs
    /// outside the handler's task, which may be cancelled.
    private func detach(_ leg: Leg) async {
        await Task {
            try? await pool.withConnection { connection in
                try await store.detach(leg.call, side: leg.side, attachment: leg.attachment, on: connection)
            }
        }.value
    }
}
