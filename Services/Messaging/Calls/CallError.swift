import Contracts
import RPC

/// Call signaling's own failures and their gRPC status and reason (calls.proto); conversation
/// access fails with `MessagingError` as chat does.
enum CallError: Error, Sendable, Equatable, RPCErrorConvertible {
    case firstMessageRingOrJoin
    case invalidCallID
    case notFound
    case notInCall
    case videoCallsNotInTier(tier: String, displayName: String)
    case inProgress(callID: String)
    case calleeBusy
    case callerBusy
    case notTheCallee
    case wrongState(CallRow.State)
    case notAccepted
    case signalTooLarge(limit: Int)
    case emptySignal
    case tooManySignals(limit: Int32)
    case attachedElsewhere
    case notAttached
    case sendActionMissing

    typealias Reason = Calls.CallErrorReason

    var rpcError: RPCError {
        switch self {
        case .firstMessageRingOrJoin:
            RPCError(Reason.firstMessageRingOrJoin, message: "a stream starts with one CallRing or CallJoin, and only once")
        case .invalidCallID: RPCError(Reason.invalidCallID, message: "call_id is not a UUID")
        case .notFound: RPCError(Reason.callNotFound, message: "no such call")
        case .notInCall: RPCError(Reason.notInCall, message: "this call is not yours")
        case .videoCallsNotInTier(let tier, let displayName):
            RPCError(Reason.videoCallsNotInTier, message: "\(displayName) does not include video calling",
                     details: ["tier": tier, "tier_display_name": displayName])
        case .inProgress(let id):
            RPCError(Reason.callInProgress, message: "a call in this conversation is already ringing or on",
                     details: ["call_id": id])
        case .calleeBusy: RPCError(Reason.calleeBusy, message: "they are in another call")
        case .callerBusy: RPCError(Reason.callerBusy, message: "you are in another call")
        case .notTheCallee: RPCError(Reason.notTheCallee, message: "only the one called accepts or declines")
        case .wrongState(let state):
            RPCError(Reason.callWrongState, message: "not possible in the call's state", details: ["state": state.name])
        case .notAccepted: RPCError(Reason.callNotAccepted, message: "accept the call before sending signals")
        case .signalTooLarge(let limit):
            RPCError(Reason.signalTooLarge, message: "the signal is larger than \(limit) bytes", details: ["limit": String(limit)])
        case .emptySignal: RPCError(Reason.emptySignal, message: "the signal is empty")
        case .tooManySignals(let limit):
            RPCError(Reason.tooManySignals, message: "a call carries at most \(limit) signals", details: ["limit": String(limit)])
        case .attachedElsewhere: RPCError(Reason.callAttachedElsewhere, message: "another stream took this side of the call")
        case .notAttached:
            RPCError(Reason.callNotAttached, message: "no stream of yours is attached to this call: Attach with CallJoin first")
        case .sendActionMissing: RPCError(Reason.sendActionMissing, message: "a SendRequest carries one action")
        }
    }
}
