package import Postgres

extension Outbox {
    /// An INSERT appending the rows of `rows` (SQL yielding columns id, type, app, aggregate_id,
    /// payload, traceparent and tracestate (`EventSpan`'s, or NULL), in the order to rank them),
    /// for a statement that computes its events from what
    /// it just wrote, as a step of its own `WITH`: a batch of changes and their events in one
    /// statement, one round trip. The caller wakes the watchers after its commit
    /// (`committed()`); nothing in the statement does (a NOTIFY in it would make concurrent
    /// commits queue for Postgres's notification lock: see `OutboxNotifier`).
    package func insertSQL(selecting rows: String) -> String {
        """
        INSERT INTO \(table) (cursor, id, type, app, aggregate_id, payload, traceparent, tracestate)
        SELECT \(Self.nextCursor), e.id, e.type, e.app, e.aggregate_id, e.payload, e.traceparent, e.tracestate
        FROM (\(rows)) e
        """
    }

    /// Wakes this process's watchers now and the other instances' soon (`OutboxNotifier`),
    /// after the commit of a statement of `insertSQL`.
    package func committed() { OutboxNotifier.committed(channel: channel) }
}
