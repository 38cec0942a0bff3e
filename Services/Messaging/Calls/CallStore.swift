import Contracts
import Foundation
import Postgres
import Runtime

/// `messaging.calls` and `messaging.call_signals`. Every change of a call happens under its row
/// lock and ends with a NOTIFY on `channel` carrying the call's id, which wakes the streams of
/// both sides on whichever instances they are (`CallWakeups`); signals go through the table
/// because an SDP is larger than a NOTIFY payload. Changes of state also reach both sides'
/// realtime streams (realtime.proto CallUpdated), which the push planner follows.
struct CallStore: Sendable {
    static let channel = "messaging_calls"

    let feed: RealtimeFeed
    let settings: CallSettings

    private static let columns = """
        c.id, c.conversation_id, c.app, c.caller_id, c.callee_id, c.state, \(UnixMicroseconds.sql("c.created_at")),
        \(UnixMicroseconds.sql("c.ring_deadline")), \(UnixMicroseconds.sql("c.accepted_at")),
        \(UnixMicroseconds.sql("c.ended_at")), c.ended_by, c.signals, c.caller_stream,
        \(UnixMicroseconds.sql("c.caller_alive_until")), c.caller_read_through, c.callee_stream,
        \(UnixMicroseconds.sql("c.callee_alive_until")), c.callee_read_through, v.closed_at IS NOT NULL,
        \(UnixMicroseconds.sql("now()"))
        """

    private static func row(_ row: PostgresRow) throws -> CallRow {
        CallRow(id: try row.decode(0), conversation: try row.decode(1), app: try row.decode(2), caller: try row.decode(3),
                callee: try row.decode(4), state: CallRow.State(rawValue: try row.decode(5)) ?? .ended,
                createdAt: try row.decode(6), ringDeadline: try row.decode(7), acceptedAt: try row.decode(8),
                endedAt: try row.decode(9), endedBy: try row.decode(10), signals: try row.decode(11),
                callerStream: try row.decode(12), callerAliveUntil: try row.decode(13), callerReadThrough: try row.decode(14),
                calleeStream: try row.decode(15), calleeAliveUntil: try row.decode(16), calleeReadThrough: try row.decode(17),
                conversationClosed: try row.decode(18), now: try row.decode(19))
    }

    /// Call `id` of `app`, locked when `lock`; nil when there is none.
    func load(_ id: UUID, app: String, lock: Bool, on connection: Connection) async throws -> CallRow? {
        let rows = try await connection.query("""
            SELECT \(Self.columns) FROM messaging.calls c JOIN messaging.conversations v ON v.id = c.conversation_id
            WHERE c.id = $1 AND c.app = $2 \(lock ? "FOR UPDATE OF c" : "")
            """, [.uuid(id), .text(app)])
        return try rows.first.map(Self.row)
    }

    /// Ends the live calls of `accounts` that are overdue (the sweep may not have come by yet),
    /// so that they neither block a new call nor count as busy.
    func settleOverdue(of accounts: [UUID], on connection: Connection) async throws {
        let rows = try await connection.query("""
            SELECT \(Self.columns) FROM messaging.calls c JOIN messaging.conversations v ON v.id = c.conversation_id
            WHERE c.state IN (1, 2) AND (c.caller_id = ANY($1) OR c.callee_id = ANY($1))
            ORDER BY c.id
            FOR UPDATE OF c
            """, [.uuidArray(accounts)])
        for var call in try rows.map(Self.row) {
            guard let outcome = call.overdue else { continue }
            call.end(outcome, by: nil)
            try await save(call, on: connection)
            try await announce(call, on: connection)
        }
    }

    /// Starts a call from `caller` to `callee` in `conversation` (the caller's access checked),
    /// with the caller's stream `attachment` attached. Accounts' calls are serialized by
    /// transaction-scoped advisory locks taken in one order, so two rings at once cannot both
    /// find a callee free.
    func ring(conversation: UUID, app: String, caller: UUID, callee: UUID, attachment: UUID,
              on connection: Connection) async throws -> CallRow {
        for account in [caller, callee].sorted(by: { $0.uuidString < $1.uuidString }) {
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7103))",
                                           [.text("call:" + account.uuidString.lowercased())])
        }
        try await settleOverdue(of: [caller, callee], on: connection)
        let live = try await connection.query("""
            SELECT id, conversation_id = $1, caller_id = $2 OR callee_id = $2 FROM messaging.calls
            WHERE state IN (1, 2) AND (caller_id = ANY($3) OR callee_id = ANY($3))
            """, [.uuid(conversation), .uuid(caller), .uuidArray([caller, callee])])
        if let same = try live.first(where: { try $0.decode(1, as: Bool.self) }) {
            throw CallError.inProgress(callID: (try same.decode(0, as: UUID.self)).uuidString.lowercased())
        }
        if try live.contains(where: { try $0.decode(2, as: Bool.self) }) { throw CallError.callerBusy }
        if !live.isEmpty { throw CallError.calleeBusy }
        let id = UUID.random()
        _ = try await connection.execute("""
            INSERT INTO messaging.calls (id, conversation_id, app, caller_id, callee_id, ring_deadline, caller_stream,
                                         caller_alive_until)
            VALUES ($1, $2, $3, $4, $5, now() + $6::int8 * interval '1 microsecond', $7,
                    now() + $8::int8 * interval '1 microsecond')
            """, [.uuid(id), .uuid(conversation), .text(app), .uuid(caller), .uuid(callee), .int64(settings.ring.microseconds),
                  .uuid(attachment), .int64(settings.grace.microseconds)])
        guard let call = try await load(id, app: app, lock: false, on: connection) else { throw CallError.notFound }
        try await announce(call, on: connection)
        return call
    }

    /// Attaches stream `attachment` to `side` of `call` (a live one), present from now.
    func attach(_ call: inout CallRow, side: CallRow.Side, attachment: UUID, on connection: Connection) async throws {
        let prefix = side == .caller ? "caller" : "callee"
        _ = try await connection.execute("""
            UPDATE messaging.calls SET \(prefix)_stream = $2, \(prefix)_alive_until = now() + $3::int8 * interval '1 microsecond'
            WHERE id = $1
            """, [.uuid(call.id), .uuid(attachment), .int64(settings.grace.microseconds)])
        if side == .caller { call.callerStream = attachment } else { call.calleeStream = attachment }
        try await notify(call.id, on: connection)
    }

    /// Writes the state a transition left.
    func save(_ call: CallRow, on connection: Connection) async throws {
        _ = try await connection.execute("""
            UPDATE messaging.calls SET state = $2, accepted_at = to_timestamp($3::int8 / 1e6),
                ended_at = to_timestamp($4::int8 / 1e6), ended_by = $5, signals = $6
            WHERE id = $1
            """, [.uuid(call.id), .int16(call.state.rawValue), .int64(call.acceptedAt), .int64(call.endedAt),
                  .uuid(call.endedBy), .int32(call.signals)])
    }

    /// Tells both sides of a change of state: their realtime streams, and their call streams.
    /// An ended call's signals go (nobody reads them any more).
    func announce(_ call: CallRow, on connection: Connection) async throws {
        if !call.state.isLive {
            _ = try await connection.execute("DELETE FROM messaging.call_signals WHERE call_id = $1", [.uuid(call.id)])
        }
        var event = Realtime.RealtimeEvent()
        event.event = .callUpdated(Realtime.CallUpdated(call: call.view))
        try await feed.publish(event, type: "CallUpdated", app: call.app, to: [call.callee, call.caller], on: connection)
        try await notify(call.id, on: connection)
    }

    /// Wakes the streams of call `id` once the transaction commits (NOTIFY is transactional).
    func notify(_ id: UUID, on connection: Connection) async throws {
        _ = try await connection.query("SELECT pg_notify($1, $2)", [.text(Self.channel), .text(id.uuidString.lowercased())])
    }

    /// Stores one signal `response` (sequence unset) from `sender` as number `sequence`.
    func addSignal(_ response: Calls.SignalResponse, call: CallRow, sender: UUID, sequence: Int32,
                   on connection: Connection) async throws {
        _ = try await connection.execute("""
            INSERT INTO messaging.call_signals (call_id, sequence, sender_id, payload) VALUES ($1, $2, $3, $4)
            """, [.uuid(call.id), .int32(sequence), .uuid(sender), .bytea(response.serializedBytes())])
        try await save(call, on: connection)
        try await notify(call.id, on: connection)
    }

    /// The signals of the side other than `recipient` after sequence `after`, in order.
    func signals(of call: UUID, for recipient: UUID, after: Int32, on connection: Connection) async throws -> [Calls.SignalResponse] {
        try await connection.query("""
            SELECT sequence, payload FROM messaging.call_signals
            WHERE call_id = $1 AND sender_id <> $2 AND sequence > $3 ORDER BY sequence
            """, [.uuid(call), .uuid(recipient), .int32(after)]).map { row in
            var response = try Calls.SignalResponse(serializedBytes: try row.decode(1, as: [UInt8].self))
            response.sequence = Int64(try row.decode(0, as: Int32.self))
            return response
        }
    }

    /// `side`'s stream `attachment` is present (for another grace) and was sent the other
    /// side's signals through `readThrough`; false when another stream took the side over.
    func refresh(_ call: UUID, side: CallRow.Side, attachment: UUID, readThrough: Int32,
                 on connection: Connection) async throws -> Bool {
        let prefix = side == .caller ? "caller" : "callee"
        return try await connection.execute("""
            UPDATE messaging.calls SET \(prefix)_alive_until = now() + $3::int8 * interval '1 microsecond',
                \(prefix)_read_through = greatest(\(prefix)_read_through, $4)
            WHERE id = $1 AND \(prefix)_stream = $2
            """, [.uuid(call), .uuid(attachment), .int64(settings.grace.microseconds), .int32(readThrough)]) == 1
    }

    /// `side`'s stream `attachment` ended without hanging up: the side has the grace from now
    /// to re-attach (unless another stream took it over already), and no stream attached
    /// meanwhile (a Send is refused until it re-attaches).
    func detach(_ call: UUID, side: CallRow.Side, attachment: UUID, on connection: Connection) async throws {
        let prefix = side == .caller ? "caller" : "callee"
        _ = try await connection.execute("""
            UPDATE messaging.calls
            SET \(prefix)_alive_until = least(\(prefix)_alive_until, now() + $3::int8 * interval '1 microsecond'),
                \(prefix)_stream = NULL
            WHERE id = $1 AND \(prefix)_stream = $2 AND state IN (1, 2)
            """, [.uuid(call), .uuid(attachment), .int64(settings.grace.microseconds)])
    }

    /// Ends the overdue live calls (missed rings, sides gone past the grace, closed
    /// conversations), at most `limit`; instances skip the rows another is ending. Returns how
    /// many ended.
    func sweep(limit: Int = 100, pool: PostgresPool) async throws -> Int {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                SELECT \(Self.columns) FROM messaging.calls c JOIN messaging.conversations v ON v.id = c.conversation_id
                WHERE c.state IN (1, 2) AND (c.ring_deadline <= now() AND c.state = 1
                    OR c.caller_alive_until IS NULL OR c.caller_alive_until <= now()
                    OR c.state = 2 AND (c.callee_alive_until IS NULL OR c.callee_alive_until <= now())
                    OR v.closed_at IS NOT NULL)
                ORDER BY c.ring_deadline LIMIT $1
                FOR UPDATE OF c SKIP LOCKED
                """, [.int(limit)])
            var ended = 0
            for var call in try rows.map(Self.row) {
                guard let outcome = call.overdue else { continue }
                call.end(outcome, by: nil)
                try await save(call, on: connection)
                try await announce(call, on: connection)
                ended += 1
            }
            return ended
        }
    }

    /// Sweeps every `interval` until cancelled.
    func sweepRegularly(every interval: Duration, pool: PostgresPool) async {
        while !Task.isCancelled {
            _ = try? await sweep(pool: pool)
            try? await Task.sleep(for: interval)
        }
    }
}
