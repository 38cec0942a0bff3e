package import Auth
package import Contracts
package import Postgres
package import RPC

/// `rendezvous.events.v1.EventStream`: serves one outbox as a resumable stream — history from
/// the requested cursor, then live events as their transactions commit.
///
/// The stream is for the other services of the deployment, not for apps: serve it behind a
/// `ServiceAuthInterceptor` guarding `internalMethods` (without one every call is refused
/// with MISSING_SERVICE_CREDENTIAL), and keep it off the gRPC edge.
package struct EventStreamService: EventStreamProvider {
    /// `WatchEvents`, open to every service the server accepts a credential from.
    package static let internalMethods: [String: ServiceAccess] = ["/\(EventStreamClient.serviceName)/WatchEvents": .anyService]

    package let outbox: Outbox
    package let pool: PostgresPool
    package let notifier: OutboxNotifier
    /// Events read per query.
    package var batchSize = 256
    /// Re-read this often even without a notification, in case one was lost.
    package var pollInterval: Duration = .seconds(5)
    /// Re-read this soon while committed events wait behind an older open transaction (whose
    /// end sends no notification when it wrote no event).
    package var heldBackInterval: Duration = .milliseconds(20)

    package init(outbox: Outbox, pool: PostgresPool, notifier: OutboxNotifier) {
        self.outbox = outbox
        self.pool = pool
        self.notifier = notifier
    }

    package func watchEvents(_ request: Events.WatchEventsRequest, writer: ResponseWriter<Events.Event>,
                             context: ServerCallContext) async throws {
        // The interceptor checked the credential; refusing here too keeps the stream closed
        // on a server assembled without it.
        _ = try context.requireService()
        // A subscription: a draining server ends it at once, and the consumer resumes from its
        // cursor (on another instance).
        context.endWhenServerDrains()
        try await watch(request, writer)
    }

    private func watch(_ request: Events.WatchEventsRequest, _ writer: ResponseWriter<Events.Event>) async throws {
        try await follow(request) { event in try await writer.write(event) }
    }

    /// Hands the events `request` asks for to `handle`, oldest first, then live ones as their
    /// transactions commit, until the task is cancelled: `WatchEvents` without the network, for
    /// a consumer in the producer's own process.
    package func follow(_ request: Events.WatchEventsRequest,
                        _ handle: (Events.Event) async throws -> Void) async throws {
        guard request.afterCursor >= 0 else {
            throw RPCError(code: .invalidArgument, message: "after_cursor must not be negative", reason: "INVALID_CURSOR")
        }
        var cursor = request.afterCursor
        if let since = request.occurredAfter {
            guard let microseconds = since.validMicroseconds else {
                throw RPCError(code: .invalidArgument, message: "occurred_after must be a time in years 1-9999 with nanos 0-999,999,999",
                               reason: "INVALID_CURSOR")
            }
            let start = try await pool.withConnection { try await outbox.cursor(before: microseconds, on: $0) }
            cursor = max(cursor, start)
        }
        let watcher = notifier.holdBack.makeWatcher()
        defer { notifier.holdBack.remove(watcher) }
        while !Task.isCancelled {
            // Read the generation first: a commit after it wakes the wait below.
            let seen = notifier.generation
            let (batch, heldBack) = try await pool.withConnection { connection in
                let batch = try await outbox.events(after: cursor, types: request.types, limit: batchSize, on: connection)
                let heldBack = batch.events.count < batchSize
                    ? try await outbox.hasHeldBack(after: batch.readThrough, types: request.types, on: connection) : false
                return (batch, heldBack)
            }
            notifier.holdBack.read(watcher, heldBack: heldBack)
            for event in batch.events { try await handle(event) }
            cursor = batch.readThrough
            if batch.events.count < batchSize {
                await notifier.wait(after: seen, timeout: heldBack ? heldBackInterval : pollInterval)
            }
        }
    }
}
