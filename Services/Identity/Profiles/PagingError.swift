import Contracts
import RPC

/// A list request's paging fields that are not usable.
enum PagingError: Error, Sendable, Equatable, RPCErrorConvertible {
    case invalidPageToken
    case invalidPageSize

    var rpcError: RPCError {
        switch self {
        case .invalidPageToken:
            RPCError(Identity.ErrorReason.invalidPageToken, message: "page_token is not one this list returned")
        case .invalidPageSize:
            RPCError(Identity.ErrorReason.invalidPageSize, message: "page_size must not be negative")
        }
    }
}
