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

    package init(id: UUID = UUID.random(), type: String, app: String, aggregateID: String, payload: [UInt8]) {
        self.id = id
        self.type = type
        self.app = app
        self.aggregateID = aggregateID
        self.payload = payload
    }
}

/// A transactional outbox in one service's schema: events are appended in the same
/// transaction as the change they describe, and writers never wait for one another.
///
/// Cursors come from the writer's transaction id: an event's cursor is
/// `xid << 20 | n`, its transaction's 64-bit id (`pg_current_xact_id()`) and its rank among
/// that transaction's events (1, 2, …; at most 2^20 - 1 a transaction). Readers serve only
/// cursors below the horizon `pg_snapshot_xmin(pg_current_snapshot()) << 20`: every
/// transaction with an id below the snapshot's xmin has ended, so every event it wrote is
/// visible now or never will be, and every transaction that can still commit has an id at or
/// above xmin, hence cursors above everything served. So a reader resuming from any cursor
/// never skips an event that commits later, and sees each event once, in one stable order (by
/// transaction id, then rank), while event-writing transactions take no shared lock and commit
/// in parallel. (Until migration 2 cursors were 1, 2, 3… from a one-row counter that writers
/// locked until commit; those are all below the new ones, so stored cursors stay valid.)
///
/// The price: a transaction with an id that stays open (anywhere in the cluster: xids are
/// cluster-wide) holds back delivery of later events until it ends. Watchers re-read shortly
/// while something is held back (`hasHeldBack`).
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

    var table: String { "\(schema).\(stream)" }
    private var sequence: String { "\(schema).\(stream)_sequence" }

    /// Bits of a cursor that hold the event's rank in its transaction.
    package static let rankBits = 20

    /// The current tables, for a scratch outbox (tests, tools): every migration's SQL.
    package var ddl: String { tableDDL + "\n" + parallelWritersDDL + "\n" + traceContextDDL }

    /// Migration 1: the table and the counter writers used to lock (kept verbatim: applied
    /// migrations are checked against their text).
    private var tableDDL: String {
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

    /// Migration 2: cursors from transaction ids (see the type's documentation); the counter
    /// goes.
    private var parallelWritersDDL: String {
        """
        DROP TABLE IF EXISTS \(sequence);
        COMMENT ON COLUMN \(table).cursor IS
            'xid << \(Self.rankBits) | rank of the event in its transaction; served below pg_snapshot_xmin << \(Self.rankBits)';
        """
    }

    /// Migration 3: the W3C Trace Context of the span that appended each event (`EventSpan`),
    /// NULL when its trace was not sampled. Identifiers and flags only.
    private var traceContextDDL: String {
        """
        ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS traceparent text, ADD COLUMN IF NOT EXISTS tracestate text;
        """
    }

    /// Migrations 1 and 2, numbered from `version` (a new service also lists
    /// `traceContextMigration`, and `occurredAtIndexMigration` when it reads by time).
    package func migrations(from version: Int) -> [Migration] {
        [migration(version: version), parallelWritersMigration(version: version + 1)]
    }

    /// Migration 1 alone (identity's version 5, applied before migration 2 existed).
    package func migration(version: Int) -> Migration {
        Migration(version: version, name: "\(stream) outbox", sql: tableDDL)
    }

    /// Migration 2 alone, for a service that applied migration 1 under its own number.
    package func parallelWritersMigration(version: Int) -> Migration {
        Migration(version: version, name: "\(stream) outbox: parallel writers", sql: parallelWritersDDL)
    }

    /// Migration 3 alone: the trace context column, a later migration of every service.
    package func traceContextMigration(version: Int) -> Migration {
        Migration(version: version, name: "\(stream) outbox: trace context", sql: traceContextDDL)
    }

    /// An index on `occurred_at`, for `cursor(before:)`; a later migration of the service.
    package func occurredAtIndexMigration(version: Int) -> Migration {
        Migration(version: version, name: "\(stream) outbox by time",
                  sql: "CREATE INDEX IF NOT EXISTS \(stream)_by_occurred_at ON \(table) (occurred_at);")
    }

    /// A cursor to resume after to see every event that occurred at or after `instant`
    /// (microseconds since the epoch): before the first such event, and before the horizon, so
    /// that events of transactions still open (whatever their `occurred_at`) are not skipped.
    package func cursor(before instant: Int64, on connection: Connection) async throws -> Int64 {
        let rows = try await connection.query("""
            SELECT least(
                (SELECT min(cursor) FROM \(table) WHERE occurred_at >= to_timestamp($1::bigint / 1000000.0)),
                \(Self.horizon)) - 1
            """, [.int64(instant)])
        return try rows[0].decode(0)  // Safe: a SELECT without FROM returns one row.
    }

    /// Appends `event` inside the caller's transaction; returns its cursor. Watchers are woken
    /// when the transaction commits: by this process's `OutboxNotifier` after a
    /// `withTransaction` commit (no NOTIFY in the writer's transaction: see `OutboxNotifier`),
    /// otherwise (a tool without a notifier, a transaction of the caller's own) by a NOTIFY in
    /// the transaction, which Postgres sends on commit.
    @discardableResult
    package func append(_ event: OutboxEvent, on connection: Connection) async throws -> Int64 {
        try await append(event, forEach: [event.aggregateID], ids: [event.id], on: connection)[0]
    }

    /// Appends one copy of `event` per aggregate id in `aggregateIDs` (the same type, app and
    /// payload, each with an id of its own), in that order and in one statement: a change that
    /// every member of something must hear of (a message for both sides of a conversation).
    /// Returns their cursors, in order.
    @discardableResult
    package func append(_ event: OutboxEvent, forEach aggregateIDs: [String], on connection: Connection) async throws -> [Int64] {
        try await append(event, forEach: aggregateIDs, ids: aggregateIDs.map { _ in UUID.random() }, on: connection)
    }

    private func append(_ event: OutboxEvent, forEach aggregateIDs: [String], ids: [UUID],
                        on connection: Connection) async throws -> [Int64] {
        guard !aggregateIDs.isEmpty else { return [] }
        let statement = appendStatement(event, forEach: aggregateIDs, ids: ids, on: connection)
        let rows = try await connection.query(statement.sql, statement.params)
        return try rows.map { try $0.decode(0) as Int64 }.sorted()
    }

    /// Appends `event` like `append`, but sends it with the transaction's COMMIT
    /// (`Connection.atCommit`) rather than now: one round trip less for a transaction whose
    /// code does not need the event's cursor. Such events follow the transaction's events
    /// appended at once, in the order of their calls. Outside a transaction of
    /// `PostgresPool.withTransaction` the event is appended at once.
    package func appendAtCommit(_ event: OutboxEvent, on connection: Connection) async throws {
        try await appendAtCommit(event, forEach: [event.aggregateID], ids: [event.id], on: connection)
    }

    /// `append(_:forEach:on:)`, sent with the transaction's COMMIT (see `appendAtCommit(_:on:)`).
    package func appendAtCommit(_ event: OutboxEvent, forEach aggregateIDs: [String], on connection: Connection) async throws {
        try await appendAtCommit(event, forEach: aggregateIDs, ids: aggregateIDs.map { _ in UUID.random() }, on: connection)
    }

    private func appendAtCommit(_ event: OutboxEvent, forEach aggregateIDs: [String], ids: [UUID],
                                on connection: Connection) async throws {
        guard !aggregateIDs.isEmpty else { return }
        try await connection.executeAtCommit(appendStatement(event, forEach: aggregateIDs, ids: ids, on: connection))
    }

    /// The statement appending one copy of `event` per aggregate id; registers the wake-up of
    /// watchers after the commit when this process has a notifier, else NOTIFYs in the statement.
    ///
    /// Each row takes the next rank from a transaction-local counter (set_config(…, true) ends
    /// with the transaction, and with a rolled-back savepoint along with that savepoint's rows):
    /// rows are numbered in the order given, as one row after another. A rank past the last a
    /// cursor can hold fails the statement (SQLSTATE 22P02, the limit in its text), so that no
    /// event is ever dropped, even when nobody reads the statement's rows.
    ///
    /// Inside a sampled span the rows store a producer span's trace context (`EventSpan`), else
    /// NULL.
    ///
    /// The usual case, one event in a transaction whose commit wakes the watchers, is a plain
    /// `INSERT … VALUES`: the common-table-expression form this replaced (a rank row, the insert,
    /// a NOTIFY step, a count) made a pipelined upsert with its event 20% slower in `pgbench`.
    private func appendStatement(_ event: OutboxEvent, forEach aggregateIDs: [String], ids: [UUID],
                                 on connection: Connection) -> PostgresStatement {
        let channel = self.channel
        let notifiedAfterCommit = OutboxNotifier.isRegistered(channel: channel)
            && connection.afterCommit { OutboxNotifier.committed(channel: channel) }
        let trace = EventSpan.produce(event.type, count: aggregateIDs.count)
        let traceParent: PostgresValue = trace.map { .text($0.traceParent) } ?? .null
        let traceState: PostgresValue = trace?.traceState.map { .text($0) } ?? .null
        let insert: String
        var params: [PostgresValue]
        if aggregateIDs.count == 1 {
            insert = """
                INSERT INTO \(table) (cursor, id, type, app, aggregate_id, payload, traceparent, tracestate)
                VALUES (\(Self.nextCursor), $1, $2, $3, $4, $5, $6::text, $7::text)
                """
            params = [.uuid(ids[0]), .text(event.type), .text(event.app), .text(aggregateIDs[0]), .bytea(event.payload),
                      traceParent, traceState]
        } else {
            insert = """
                INSERT INTO \(table) (cursor, id, type, app, aggregate_id, payload, traceparent, tracestate)
                SELECT \(Self.nextCursor), e.id, $2, $3, e.aggregate_id, $5, $6::text, $7::text
                FROM unnest($1::uuid[], $4::text[]) AS e(id, aggregate_id)
                """
            params = [.uuidArray(ids), .text(event.type), .text(event.app), .textArray(aggregateIDs), .bytea(event.payload),
                      traceParent, traceState]
        }
        if notifiedAfterCommit {
            return PostgresStatement(insert + " RETURNING cursor", params)
        }
        // Repeats of one notification in a transaction are sent once.
        params.append(.text(channel))
        return PostgresStatement("""
            WITH inserted AS (\(insert) RETURNING cursor),
            notified AS (SELECT pg_notify($8, '') FROM (SELECT 1 FROM inserted LIMIT 1) one)
            SELECT cursor, (SELECT count(*) FROM notified) FROM inserted
            """, params)
    }

    /// The next cursor of the transaction, in SQL: its id, then the next rank of the
    /// transaction-local counter, or an error past the last rank.
    static let nextCursor: String = {
        let rank = "coalesce(nullif(current_setting('rendezvous.outbox_rank', true), ''), '0')::bigint + 1"
        let limit = 1 << rankBits
        return """
            (pg_current_xact_id()::text::bigint << \(rankBits))
            | set_config('rendezvous.outbox_rank',
                         CASE WHEN \(rank) < \(limit) THEN (\(rank))::text
                              ELSE ('a transaction may append at most \(limit - 1) outbox events, not ' || \(rank))::bigint::text
                         END,
                         true)::bigint
            """
    }()

    /// The horizon in SQL: cursors below it belong to transactions that have all ended.
    private static let horizon = "(pg_snapshot_xmin(pg_current_snapshot())::text::bigint << \(rankBits))"

    /// Up to `limit` events after `cursor` and below the horizon, oldest first, optionally of
    /// some types only, and the cursor a reader continues after (`OutboxBatch.readThrough`).
    package func events(after cursor: Int64, types: [String], limit: Int, on connection: Connection) async throws -> OutboxBatch {
        // The horizon comes back with the events (one row of NULLs when there are none): what
        // this statement's snapshot read is complete up to it.
        let rows = try await connection.query("""
            SELECT h.horizon, e.cursor, e.id, e.type, e.app, e.aggregate_id, e.payload, e.occurred, e.traceparent, e.tracestate
            FROM (SELECT \(Self.horizon) AS horizon) h
            LEFT JOIN LATERAL (
                SELECT cursor, id, type, app, aggregate_id, payload, traceparent, tracestate,
                       (extract(epoch FROM occurred_at) * 1000000)::bigint AS occurred
                FROM \(table)
                WHERE cursor > $1 AND cursor < h.horizon
                  AND (cardinality($2::text[]) = 0 OR type = ANY($2::text[]))
                ORDER BY cursor
                LIMIT $3) e ON true
            ORDER BY e.cursor
            """, [.int64(cursor), .textArray(types), .int64(Int64(limit))])
        let horizon: Int64 = try rows[0].decode(0)  // Safe: the horizon's row is always there.
        let events = try rows.compactMap { row -> Events.Event? in
            guard let eventCursor = try row.decode(1, as: Int64?.self) else { return nil }
            var event = Events.Event()
            event.cursor = eventCursor
            event.id = (try row.decode(2, as: UUID.self)).uuidString.lowercased()
            event.type = try row.decode(3)
            event.app = try row.decode(4)
            event.aggregateID = try row.decode(5)
            event.payload = try row.decode(6)
            event.occurredAt = Timestamp(microseconds: try row.decode(7))
            event.traceparent = try row.decode(8, as: String?.self) ?? ""
            event.tracestate = try row.decode(9, as: String?.self) ?? ""
            return event
        }
        let last = events.last?.cursor ?? cursor
        return OutboxBatch(events: events, readThrough: events.count < limit ? max(last, horizon - 1) : last)
    }

    /// Whether committed events after `cursor` (of `types`, every type when empty) exist: after
    /// a read that returned fewer than it asked for, they are held back behind an older open
    /// transaction, or the horizon passed them since that read (a read and this check see
    /// different snapshots), and a watcher re-reads soon rather than at the next commit. The
    /// second case is why this does not test the horizon itself: a transaction that wrote no
    /// event and ended between the two would otherwise leave its watchers waiting for a poll.
    ///
    /// Bounded above by the snapshot's xmax (no visible event lies beyond it) so that the
    /// prepared statement's generic plan walks the primary key up from `cursor` (above a
    /// reader's `readThrough` there are a few rows): with `cursor > $1` alone it expected a
    /// third of the table and scanned all of it, 34 ms a call on an outbox of 75,000 events.
    package func hasHeldBack(after cursor: Int64, types: [String] = [], on connection: Connection) async throws -> Bool {
        try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM \(table)
                           WHERE cursor > $1 AND cursor < (pg_snapshot_xmax(pg_current_snapshot())::text::bigint << \(Self.rankBits))
                             AND (cardinality($2::text[]) = 0 OR type = ANY($2::text[])))
            """, [.int64(cursor), .textArray(types)])[0].decode(0)
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 40, first >= 0x61 && first <= 0x7a || first == 0x5f else {
            return false
        }
        return name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f }
    }
}

/// What one read of an outbox returned.
package struct OutboxBatch: Sendable {
    /// The events, oldest first.
    package var events: [Events.Event]
    /// Every event of the asked types with a cursor up to this one has been returned, by this
    /// read or an earlier one, and no other will ever appear there: a reader continues after
    /// it. After a read that returned fewer events than asked for, this is the horizon less
    /// one, past events of other types, so a reader filtering by type does not scan them again
    /// (before, every read of such a reader went back over everything after its last match).
    package var readThrough: Int64
}
