/// A five-character SQLSTATE code, with the ones Rendezvous maps as a literal table.
///
/// Source: PostgreSQL 15 documentation, Appendix A "PostgreSQL Error Codes".
package struct SQLState: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    package var rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }

    /// The two-character class, e.g. `08` for connection exceptions.
    package var errorClass: Substring { rawValue.prefix(2) }

    // Class 08 — Connection Exception
    package static let connectionException: SQLState = "08000"
    package static let sqlclientUnableToEstablishSqlconnection: SQLState = "08001"
    package static let connectionDoesNotExist: SQLState = "08003"
    package static let sqlserverRejectedEstablishmentOfSqlconnection: SQLState = "08004"
    package static let connectionFailure: SQLState = "08006"
    package static let protocolViolation: SQLState = "08P01"

    // Class 22 — Data Exception
    package static let dataException: SQLState = "22000"
    package static let numericValueOutOfRange: SQLState = "22003"
    package static let invalidDatetimeFormat: SQLState = "22007"
    package static let divisionByZero: SQLState = "22012"
    package static let invalidTextRepresentation: SQLState = "22P02"

    // Class 23 — Integrity Constraint Violation
    package static let integrityConstraintViolation: SQLState = "23000"
    package static let restrictViolation: SQLState = "23001"
    package static let notNullViolation: SQLState = "23502"
    package static let foreignKeyViolation: SQLState = "23503"
    package static let uniqueViolation: SQLState = "23505"
    package static let checkViolation: SQLState = "23514"
    package static let exclusionViolation: SQLState = "23P01"

    // Class 25 — Invalid Transaction State
    package static let inFailedSqlTransaction: SQLState = "25P02"

    // Class 40 — Transaction Rollback
    package static let transactionRollback: SQLState = "40000"
    package static let serializationFailure: SQLState = "40001"
    package static let deadlockDetected: SQLState = "40P01"

    // Class 42 — Syntax Error or Access Rule Violation
    package static let insufficientPrivilege: SQLState = "42501"
    package static let syntaxError: SQLState = "42601"
    package static let undefinedColumn: SQLState = "42703"
    package static let undefinedTable: SQLState = "42P01"
    package static let undefinedFunction: SQLState = "42883"

    // Class 53 — Insufficient Resources
    package static let tooManyConnections: SQLState = "53300"

    // Class 55 — Object Not In Prerequisite State
    package static let lockNotAvailable: SQLState = "55P03"

    // Class 57 — Operator Intervention
    package static let queryCanceled: SQLState = "57014"
    package static let adminShutdown: SQLState = "57P01"
    package static let crashShutdown: SQLState = "57P02"
    package static let cannotConnectNow: SQLState = "57P03"

    // Class P0 — PL/pgSQL Error
    package static let raiseException: SQLState = "P0001"
}
