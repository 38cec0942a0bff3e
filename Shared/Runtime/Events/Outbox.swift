package import Contracts
package import Foundation
package import Postgres

/// A domain event to append to an outbox.
package struct OutboxEvent: Sendable {
    package var id: UUID
    package var type: String
    package var app: String
    package var aggregateID: String
    package var payload: [UInt8]

    package init(id: UUID = UUID(), type: String, app: String, aggregateID: String, payload: [UInt8]) {
        self.id = id
        self.type = type
        self.app = app
        self.aggregateID = aggregateID
        self.payload = payload
    }
}

/// A transactional outbox in one service's schema: events are appended in the same
/// transaction as the change they describe and get a cursor in commit order.
///
/// Commit order: each append first increments a one-row sequence, whose row lock is held until
/// the transaction ends, so a later cursor can never commit before an earlier one and a reader
/// that has seen cursor N will never later find an uncommitted N-1 appear. The cost is that
/// event-writing transactions of one stream commit one at a time.
package struct Outbox: Sendable {
    package let schema: String
    package let stream: String

    /// `schema.stream` must be plain lower-case identifiers (they are spliced into SQL).
    package init(schema: String, stream: String = "outbox") throws {
        guard Outbox.isIdentifier(schema), Outbox.isIdentifier(stream) else {
            throw PostgresError(code: .protocolViolation, context: "outbox names must be lower-case identifiers")
        }
        self.schema = schema
        self.stream = stream
    }

    /// The NOTIFY channel woken on every commit that appended events.
    package var channel: String { "\(schema)_\(stream)" }

    private var table: String { "\(schema).\(stream)" }
    private var sequence: String { "\(schema).\(stream)_sequence" }

    /// The tables, for a service's migration list.
    package var ddl: String {
        """
        CREATE TABLE IF NOT EXISTS \(table) (
            cursor bigint PRIMARY KEY,
            id uuid NOT NULL UNIQUE,
            type text NOT NULL,
            app text NOT NULL DEFAULT '',
            aggregate_id text NOT NULL DEFAULT '',
            payload bytea NOT NULL,
            occurred_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE IF NOT EXISTS \(sequence) (
            id int PRIMARY KEY CHECK (id = 1),
            last bigint NOT NULL
        );
        INSERT INTO \(sequence) (id, last) VALUES (1, 0) ON CONFLICT DO NOTHING;
        """
    }

    package func migration(version: Int) -> Migration {
        Migration(version: version, name: "\(stream) outbox", sql: ddl)
    }

    /// An index on `occurred_at`, for `cursor(before:)`; a later migration of the service.
    package func occurredAtIndexMigration(version: Int) -> Migration {
        Migration(version: version, name: "\(stream) outbox by time",
                  sql: "CREATE INDEX IF NOT EXISTS \(stream)_by_occurred_at ON \(table) (occurred_at);")
    }

    /// The cursor to resume after to see every event that occurred at or after `instant`
    /// (microseconds since the epoch): the one before the first such event, else the last one.
    package func cursor(before instant: Int64, on connection: Connection) async throws -> Int64 {
        let rows = try await connection.query("""
            SELECT coalesce(
                (SELECT min(cursor) - 1 FROM \(table) WHERE occurred_at >= to_timestamp($1::bigint / 1000000.0)),
                (SELECT last FROM \(sequence) WHERE id = 1),
                0)::bigint
            """, [.int64(instant)])
        return try rows[0].decode(0)  // Safe: a SELECT without FROM returns one row.
    }

    /// Appends `event` inside the caller's transaction; returns its cursor. Consumers are woken
    /// when the transaction commits (NOTIFY is transactional).
    @discardableResult
    package func append(_ event: OutboxEvent, on connection: Connection) async throws -> Int64 {
        let rows = try await connection.query("""
            WITH next AS (UPDATE \(sequence) SET last = last + 1 WHERE id = 1 RETURNING last)
            INSERT INTO \(table) (cursor, id, type, app, aggregate_id, payload)
            SELECT last, $1, $2, $3, $4, $5 FROM next
            RETURNING cursor
            """, [.uuid(event.id), .text(event.type), .text(event.app), .text(event.aggregateID), .bytea(event.payload)])
        let cursor: Int64 = try rows[0].decode(0)
        _ = try await connection.query("SELECT pg_notify($1, $2)", [.text(channel), .text(String(cursor))])
        return cursor
    }

    /// Up to `limit` events after `cursor`, oldest first, optionally of some types only.
    package func events(after cursor: Int64, types: [String], limit: Int, on connection: Connection) async throws -> [Events.Event] {
        let rows = try await connection.query("""
            SELECT cursor, id, type, app, aggregate_id, payload,
                   (extract(epoch FROM occurred_at) * 1000000)::bigint
            FROM \(table)
            WHERE cursor > $1 AND (cardinality($2::text[]) = 0 OR type = ANY($2::text[]))
            ORDER BY cursor
            LIMIT $3
            """, [.int64(cursor), .textArray(types), .int64(Int64(limit))])
        return try rows.map { row in
            var event = Events.Event()
            event.cursor = try row.decode(0)
            event.id = (try row.decode(1, as: UUID.self)).uuidString.lowercased()
            event.type = try row.decode(2)
            event.app = try row.decode(3)
            event.aggregateID = try row.decode(4)
            event.payload = try row.decode(5)
            event.occurredAt = Timestamp(microseconds: try row.decode(6))
            return event
        }
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 40, first >= 0x61 && first <= 0x7a || first == 0x5f else {
            return false
        }
        return name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f }
    }
}
