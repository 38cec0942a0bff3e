import RPC

/// A list request's paging fields that are not usable.
enum PagingError: Error, Sendable, Equatable, RPCErrorConvertible {
    case invalidPageToken
    case invalidPageSize

    var rpcError: RPCError {
        switch self {
        case .invalidPageToken:
            RPCError(code: .invalidArgument, message: "page_token is not one this list returned", reason: "INVALID_PAGE_TOKEN")
        case .invalidPageSize:
            RPCError(code: .invalidArgument, message: "page_size must not be negative", reason: "INVALID_PAGE_SIZE")
        }
    }
}
