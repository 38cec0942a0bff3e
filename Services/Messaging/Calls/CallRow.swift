import Contracts
import Foundation

/// One row of `messaging.calls`, read with the database's clock (`now`, Unix microseconds);
/// the transitions are methods here, without I/O, and `CallStore` saves what they leave.
struct CallRow: Sendable, Equatable {
    /// calls.proto CallState.
    enum State: Int16, Sendable {
        case ringing = 1, accepted, ended, declined, missed, cancelled

        var isLive: Bool { self == .ringing || self == .accepted }

        var name: String {
            switch self {
            case .ringing: "RINGING"
            case .accepted: "ACCEPTED"
            case .ended: "ENDED"
            case .declined: "DECLINED"
            case .missed: "MISSED"
            case .cancelled: "CANCELLED"
            }
        }
    }

    enum Side: Sendable {
        case caller, callee
    }

    let id: UUID
    let conversation: UUID
    let app: String
    let caller: UUID
    let callee: UUID
    var state: State
    let createdAt: Int64
    let ringDeadline: Int64
    var acceptedAt: Int64?
    var endedAt: Int64?
    var endedBy: UUID?
    var signals: Int32
    var callerStream: UUID?
    var callerAliveUntil: Int64?
    var callerReadThrough: Int32
    var calleeStream: UUID?
    var calleeAliveUntil: Int64?
    var calleeReadThrough: Int32
    /// The conversation was closed (unmatch, block, deletion).
    let conversationClosed: Bool
    /// The database's clock in the transaction that read the row.
    let now: Int64

    func side(of account: UUID) -> Side? {
        account == caller ? .caller : account == callee ? .callee : nil
    }

    func account(of side: Side) -> UUID { side == .caller ? caller : callee }
    func stream(of side: Side) -> UUID? { side == .caller ? callerStream : calleeStream }
    func readThrough(of side: Side) -> Int32 { side == .caller ? callerReadThrough : calleeReadThrough }

    /// The state a live call ends in because time passed or the conversation closed, or nil:
    /// ringing past its deadline is missed; ringing without its caller (gone past the grace) or
    /// in a closed conversation is cancelled; accepted with either side gone, or closed, ends.
    var overdue: State? {
        switch state {
        case .ringing:
            if now >= ringDeadline { return .missed }
            if conversationClosed || callerAliveUntil.map({ now >= $0 }) ?? true { return .cancelled }
            return nil
        case .accepted:
            let gone = callerAliveUntil.map { now >= $0 } ?? true || calleeAliveUntil.map { now >= $0 } ?? true
            return conversationClosed || gone ? .ended : nil
        default:
            return nil
        }
    }

    /// Ends a live call in `state`, by `account` (nil: the server ended it).
    mutating func end(_ state: State, by account: UUID?) {
        self.state = state
        endedAt = now
        endedBy = account
    }

    mutating func accept(by side: Side) throws(CallError) {
        guard side == .callee else { throw .notTheCallee }
        guard state == .ringing else { throw .wrongState(state) }
        state = .accepted
        acceptedAt = now
    }

    mutating func decline(by side: Side) throws(CallError) {
        guard side == .callee else { throw .notTheCallee }
        guard state == .ringing else { throw .wrongState(state) }
        end(.declined, by: callee)
    }

    /// Hangs up: a ringing call is cancelled by its caller or declined by its callee, an
    /// accepted one ends. Returns false when the call had already ended (nothing to do).
    mutating func hangUp(by side: Side) -> Bool {
        switch state {
        case .ringing: end(side == .caller ? .cancelled : .declined, by: account(of: side))
        case .accepted: end(.ended, by: account(of: side))
        default: return false
        }
        return true
    }

    /// Checks that `side` may send a signal now, and takes its sequence.
    mutating func takeSignalSequence(by side: Side, limit: Int32) throws(CallError) -> Int32 {
        guard state.isLive else { throw .wrongState(state) }
        guard side == .caller || state == .accepted else { throw .notAccepted }
        guard signals < limit else { throw .tooManySignals(limit: limit) }
        signals += 1
        return signals
    }

    /// The call as calls.proto shows it.
    var view: Calls.Call {
        var call = Calls.Call()
        call.callID = id.uuidString.lowercased()
        call.conversationID = conversation.uuidString.lowercased()
        call.callerID = caller.uuidString.lowercased()
        call.calleeID = callee.uuidString.lowercased()
        call.state = Calls.CallState(rawValue: Int32(state.rawValue))
        call.createdAt = Timestamp(microseconds: createdAt)
        call.ringDeadline = Timestamp(microseconds: ringDeadline)
        call.acceptedAt = acceptedAt.map { Timestamp(microseconds: $0) }
        call.endedAt = endedAt.map { Timestamp(microseconds: $0) }
        call.endedBy = endedBy?.uuidString.lowercased() ?? ""
        return call
    }
}
