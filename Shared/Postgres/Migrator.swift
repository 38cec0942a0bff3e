/// Applies a schema's pending migrations at start-up.
///
/// Everything runs in one transaction holding `pg_advisory_xact_lock` on a key derived from
/// the schema name, so instances starting together apply each version exactly once: the
/// second waits for the first to commit, then finds nothing left to do. Each applied version
/// is recorded in `<schema>.schema_migrations` with its name, the SHA-256 of its SQL
/// (computed by the server) and the time; a recorded version whose SQL changed fails start-up.
package struct Migrator: Sendable {
    package let schema: String
    package let migrations: [Migration]

    package init(schema: String, migrations: [Migration]) {
        self.schema = schema
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Applies what is pending; returns the versions this call applied, in order.
    @discardableResult
    package func migrate(_ pool: PostgresPool) async throws -> [Int] {
        try validate()
        return try await pool.withTransaction { connection in
            try await connection.execute("SELECT pg_advisory_xact_lock($1)", [.int64(lockKey)])
            try await connection.executeScript("""
                CREATE TABLE IF NOT EXISTS \(schema).schema_migrations (
                    version int8 PRIMARY KEY,
                    name text NOT NULL,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let checksums = try await connection.query("""
                SELECT encode(sha256(convert_to(sql, 'UTF8')), 'hex')
                FROM unnest($1::text[]) WITH ORDINALITY AS m(sql, position) ORDER BY position
                """, [.textArray(migrations.map(\.sql))]).map { try $0.decode(0, as: String.self) }
            var recorded: [Int: String] = [:]
            for row in try await connection.query("SELECT version, checksum FROM \(schema).schema_migrations") {
                recorded[try row.decode(0, as: Int.self)] = try row.decode(1, as: String.self)
            }
            var applied: [Int] = []
            for (migration, checksum) in zip(migrations, checksums) {
                if let previous = recorded[migration.version] {
                    guard previous == checksum else {
                        throw MigrationError(schema: schema, kind: .checksumMismatch(
                            version: migration.version, recorded: previous, current: checksum))
                    }
                    continue
                }
                if applied.isEmpty { try await connection.executeScript("SET LOCAL search_path = \(schema), public") }
                try await connection.executeScript(migration.sql)
                try await connection.execute("""
                    INSERT INTO \(schema).schema_migrations (version, name, checksum) VALUES ($1, $2, $3)
                    """, [.int(migration.version), .text(migration.name), .text(checksum)])
                applied.append(migration.version)
            }
            return applied
        }
    }

    private func validate() throws(MigrationError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_".utf8)
        guard let first = schema.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              schema.utf8.allSatisfy(allowed.contains), schema.utf8.count <= 63 else {
            throw MigrationError(schema: schema, kind: .invalidSchemaName)
        }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw MigrationError(schema: schema, kind: .duplicateVersion(next.version))
        }
    }

    /// FNV-1a (64-bit) of a namespaced schema name: stable across processes and releases.
    var lockKey: Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "rendezvous.migrations:\(schema)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3  // FNV prime; wrapping multiply is the algorithm
        }
        return Int64(bitPattern: hash)
    }
}
