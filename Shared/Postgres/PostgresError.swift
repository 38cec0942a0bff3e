/// An error from the database layer: a server error carrying its SQLSTATE and diagnostic
/// fields, or a client-side condition (lost connection, pool timeout, decoding failure).
///
/// `description` holds only the code, the SQLSTATE and schema object names: never SQL text,
/// bound values or server messages, which can quote values (`invalid input syntax for type
/// uuid: "…"`). The raw server fields stay available as properties for deliberate logging.
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    package enum Code: Hashable, Sendable, CustomStringConvertible {
        /// The server rejected a statement with this SQLSTATE.
        case sqlState(SQLState)
        /// The connection broke while in use (server restarted, backend terminated, network).
        case connectionLost
        /// A new connection could not be established.
        case connectionFailed
        /// The connection or pool was closed by us.
        case connectionClosed
        /// No connection became free within the acquire timeout.
        case poolTimeout
        /// The server answered something libpq or this module did not expect.
        case protocolViolation
        /// A column value could not be decoded as the requested Swift type.
        case decodingFailed

        package var description: String {
            switch self {
            case .sqlState(let state): "sqlState(\(state.rawValue))"
            case .connectionLost: "connectionLost"
            case .connectionFailed: "connectionFailed"
            case .connectionClosed: "connectionClosed"
            case .poolTimeout: "poolTimeout"
            case .protocolViolation: "protocolViolation"
            case .decodingFailed: "decodingFailed"
            }
        }
    }

    /// The kind of failure.
    package var code: Code
    /// The server's SQLSTATE, also set for `.connectionLost` when the server sent one (57P01).
    package var sqlState: SQLState?
    /// The server's primary message (may quote values: log deliberately, never send to clients).
    package var messagePrimary: String?
    /// The server's detail (often quotes key values, e.g. `Key (email)=(…) already exists`).
    package var detail: String?
    /// The server's hint.
    package var hint: String?
    /// The violated constraint, for integrity errors.
    package var constraintName: String?
    /// The schema, table and column the error concerns, when the server names them.
    package var schemaName: String?
    package var tableName: String?
    package var columnName: String?
    /// Client-side context without values, e.g. `column 2 (oid 25) as Int64`.
    package var context: String?

    package init(code: Code, sqlState: SQLState? = nil, messagePrimary: String? = nil,
                 context: String? = nil) {
        self.code = code
        self.sqlState = sqlState ?? { if case .sqlState(let s) = code { s } else { nil } }()
        self.messagePrimary = messagePrimary
        self.context = context
    }

    package var description: String {
        var text = "PostgresError(\(code)"
        if let sqlState, code != .sqlState(sqlState) { text += ", sqlState: \(sqlState.rawValue)" }
        if let constraintName { text += ", constraint: \(constraintName)" }
        if let schemaName { text += ", schema: \(schemaName)" }
        if let tableName { text += ", table: \(tableName)" }
        if let columnName { text += ", column: \(columnName)" }
        if let context { text += ", \(context)" }
        return text + ")"
    }

    /// True for failures after which a whole transaction may be retried (40001, 40P01).
    package var isRetryableTransactionFailure: Bool {
        sqlState == .serializationFailure || sqlState == .deadlockDetected
    }
}
