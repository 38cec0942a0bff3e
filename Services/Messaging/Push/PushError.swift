import Contracts
import RPC

/// Push's refusals of bad input (push.proto PushErrorReason).
enum PushError: Error, Sendable, Equatable, RPCErrorConvertible {
    case invalidCategory
    case invalidQuietHours

    var rpcError: RPCError {
        switch self {
        case .invalidCategory:
            RPCError(Push.PushErrorReason.invalidPushCategory, message: "each category must be a known one, named once")
        case .invalidQuietHours:
            RPCError(Push.PushErrorReason.invalidQuietHours,
                     message: "quiet hours take minutes 0-1439 and a UTC offset of -840 to 840 minutes")
        }
    }
}
