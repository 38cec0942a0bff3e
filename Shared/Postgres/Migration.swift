/// One versioned schema change. Services embed their migrations as Swift string literals,
/// numbered from 1; an applied migration's SQL must never change (its checksum is recorded).
package struct Migration: Sendable, Hashable {
    package var version: Int
    package var name: String
    package var sql: String

    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Why migrating a schema refused to start. The description names versions, never SQL.
package struct MigrationError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// An applied migration's SQL differs from what was recorded.
        case checksumMismatch(version: Int, recorded: String, current: String)
        /// Two migrations share a version number.
        case duplicateVersion(Int)
        /// The schema name is not a plain lower-case identifier.
        case invalidSchemaName
    }

    package var schema: String
    package var kind: Kind

    package var description: String {
        switch kind {
        case .checksumMismatch(let version, let recorded, let current):
            "schema \(schema): migration \(version) was changed after it was applied "
                + "(recorded sha256 \(recorded.prefix(12))…, now \(current.prefix(12))…); "
                + "add a new migration instead of editing an applied one"
        case .duplicateVersion(let version):
            "schema \(schema): two migrations have version \(version)"
        case .invalidSchemaName:
            "schema name must match [a-z_][a-z0-9_]*"
        }
    }
}
