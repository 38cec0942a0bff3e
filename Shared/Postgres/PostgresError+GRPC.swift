extension PostgresError {
    /// How the RPC layer reports this error: a gRPC status number, an `ErrorInfo` reason and a
    /// client-safe message. Nothing here quotes SQL, values or server text, except a
    /// `RAISE EXCEPTION` whose message is itself a reason (`SESSION_FULL`): triggers signal
    /// domain rules that way, with an optional `HINT` as the user-facing message.
    package var grpcMapping: (code: Int, reason: String, message: String) {
        switch code {
        case .poolTimeout:
            return (14, "DB_BUSY", "the service is busy, try again")
        case .connectionLost, .connectionFailed, .connectionClosed:
            return (14, "DB_UNAVAILABLE", "the database is unavailable, try again")
        case .protocolViolation, .decodingFailed:
            return Self.internalMapping
        case .sqlState(let state):
            return Self.mapping(state, messagePrimary: messagePrimary, hint: hint)
        }
    }

    private static let internalMapping = (code: 13, reason: "INTERNAL", message: "internal error")

    private static func mapping(_ state: SQLState, messagePrimary: String?, hint: String?)
        -> (code: Int, reason: String, message: String)
    {
        switch state {
        case .uniqueViolation:
            return (6, "ALREADY_EXISTS", "already exists")
        case .foreignKeyViolation:
            return (9, "FOREIGN_KEY_VIOLATION", "a referenced record does not exist")
        case .checkViolation:
            return (3, "CHECK_VIOLATION", "a value is out of the allowed range")
        case .notNullViolation:
            return (3, "NOT_NULL_VIOLATION", "a required value is missing")
        case .raiseException:
            let reason = messagePrimary.flatMap { isReason($0) ? $0 : nil } ?? "FAILED_PRECONDITION"
            return (9, reason, hint ?? "the request cannot be applied in the current state")
        case .serializationFailure, .deadlockDetected:
            return (10, "TRANSACTION_ABORTED", "a concurrent change interfered, try again")
        case .queryCanceled:
            return (4, "DB_TIMEOUT", "the database took too long")
        case .adminShutdown, .crashShutdown, .cannotConnectNow, .tooManyConnections:
            return (14, "DB_UNAVAILABLE", "the database is unavailable, try again")
        default:
            if state.errorClass == "08" {
                return (14, "DB_UNAVAILABLE", "the database is unavailable, try again")
            }
            if state.errorClass == "22" {
                return (3, "INVALID_ARGUMENT", "a value has an invalid format or range")
            }
            return internalMapping
        }
    }

    /// `UPPER_SNAKE_CASE`, at most 63 characters: safe to send as an ErrorInfo reason.
    private static func isReason(_ text: String) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first),
              text.utf8.count <= 63 else { return false }
        return text.utf8.allSatisfy {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
        }
    }
}
