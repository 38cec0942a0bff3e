import Contracts
import RPC

/// Free text and lists that break their field's rules; shared by profiles and safety so both
/// report them alike, with the field and the bound in the details.
enum InputError: Error, Sendable, Equatable, RPCErrorConvertible {
    /// Control characters, or bidirectional overrides that disguise text.
    case invalidText(field: String)
    /// Longer than `maximum` characters; `reason` is FIELD_TOO_LONG or a field's own (BIO_TOO_LONG).
    case tooLong(field: String, maximum: Int, reason: Identity.ErrorReason)
    /// More than `maximum` values; `reason` is TOO_MANY_VALUES or a field's own (TOO_MANY_TAGS).
    case tooMany(field: String, maximum: Int, reason: Identity.ErrorReason)

    var rpcError: RPCError {
        switch self {
        case .invalidText(let field):
            RPCError(Identity.ErrorReason.invalidText, message: "\(field) contains characters that are not allowed", details: ["field": field])
        case .tooLong(let field, let maximum, let reason):
            RPCError(reason, message: "\(field) may have at most \(maximum) characters", details: ["field": field, "max_length": String(maximum)])
        case .tooMany(let field, let maximum, let reason):
            RPCError(reason, message: "\(field) may have at most \(maximum) values", details: ["field": field, "max_count": String(maximum)])
        }
    }
}
