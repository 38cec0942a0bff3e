import Contracts
import Foundation
import RPC

/// Why an account named in a request cannot be used: not a UUID, or not an account the caller
/// may see. Another app's account, and one hidden by a block, are NOT_FOUND like a missing
/// one, so existence never leaks across apps or blocks.
enum LookupError: Error, Sendable, Equatable, RPCErrorConvertible {
    case invalidAccountID
    case userNotFound

    var rpcError: RPCError {
        switch self {
        case .invalidAccountID:
            RPCError(Identity.ErrorReason.invalidAccountID, message: "account_id is not a UUID")
        case .userNotFound:
            RPCError(Identity.ErrorReason.userNotFound, message: "no such user")
        }
    }

    /// The UUID in `text`, or INVALID_ARGUMENT `INVALID_ACCOUNT_ID`.
    static func accountID(_ text: String) throws(LookupError) -> UUID {
        guard let id = UUID(uuidString: text.trimmedOfWhitespace) else { throw .invalidAccountID }
        return id
    }
}
