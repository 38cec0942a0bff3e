package import Postgres
package import RPC

/// A database error thrown out of a handler reaches the client as its gRPC mapping (unique
/// violation → ALREADY_EXISTS, lost connection → UNAVAILABLE, a trigger's UPPER_SNAKE reason
/// → FAILED_PRECONDITION with that reason, …), never with SQL or values in the message.
extension PostgresError: RPCErrorConvertible {
    package var rpcError: RPCError {
        let mapping = grpcMapping
        return RPCError(code: StatusCode(rawValue: mapping.code), message: mapping.message, reason: mapping.reason)
    }
}
