package import IOLoop
package import Logging
import Synchronization

/// A bounded pool of libpq connections with a FIFO wait queue.
///
/// Threading: every connection runs libpq in non-blocking mode on one event loop, the one it
/// was bound to when opened (`ConnectionDriver`). A connection opened for a task running on
/// an event loop — a gRPC handler on its HTTP/2 loop — is bound to that loop, so the handler's
/// statements are sent, awaited and answered on its own thread with no hop; other callers get
/// connections bound to `group`'s loops and hop there and back once per statement. Acquiring
/// prefers an idle connection bound to the caller's loop. Only opening blocks (on a
/// short-lived thread of its own); the listener, which waits on its socket indefinitely,
/// keeps a thread of its own too. Stop a loop only after the pools whose connections it
/// drives are closed: a connection on a stopped loop is discarded when idle, but a statement
/// in flight on it would never be answered.
///
/// Connections are opened lazily up to `poolSize`, checked before reuse (a terminated
/// backend leaves bytes on an idle socket) and replaced when broken. A call that was running
/// when its connection died fails with `.connectionLost`; the next one gets a fresh connection.
package final class PostgresPool: Sendable {
    /// A snapshot of the pool's occupancy.
    package struct Stats: Sendable, Equatable {
        /// Most connections the pool opens.
        package var size: Int
        /// Connections open or being opened.
        package var open: Int
        package var idle: Int
        package var inUse: Int
        /// Tasks queued for a connection.
        package var waiters: Int
    }

    package let configuration: PostgresConfiguration
    private let group: EventLoopGroup
    private let logger: Logger
    private let state: Mutex<PoolState>
    private let nextWaiterID = Atomic<Int>(0)
    /// Monotonic nanoseconds when a connection last came back unbroken or was opened (0: never).
    private let lastAnswered = Atomic<UInt64>(0)

    /// Connections opened by callers that run on no event loop are bound to `group`'s loops
    /// (by default one loop shared by every pool in the process).
    package init(configuration: PostgresConfiguration, group: EventLoopGroup? = nil,
                 logger: Logger = Logger(label: "rendezvous.postgres")) {
        self.configuration = configuration
        self.group = group ?? Self.sharedGroup
        self.logger = logger
        self.state = Mutex(PoolState(capacity: configuration.poolSize))
    }

    package var stats: Stats {
        state.withLock { state in
            Stats(size: state.capacity, open: state.open, idle: state.idle.count,
                  inUse: state.open - state.idle.count, waiters: state.waiters.count)
        }
    }

    /// Whether the server answered this pool within `interval`: a connection was opened, or
    /// came back from a caller unbroken. Free to ask (one atomic load): a busy pool proves the
    /// server is reachable without a round trip of its own.
    package func answered(within interval: Duration) -> Bool {
        let last = lastAnswered.load(ordering: .relaxed)
        guard last != 0 else { return false }
        let now = MonotonicClock.nanoseconds()
        // A store between the load and the clock read can make `last` the later one.
        return now < last || now - last <= UInt64(max(0, PostgresConfiguration.milliseconds(interval))) * 1_000_000
    }

    /// Lends a connection to `body` and takes it back afterwards, rolling back any transaction
    /// `body` left open. Waits at most `acquireTimeout` for one (then `.poolTimeout`).
    @discardableResult
    nonisolated(nonsending) package func withConnection<T>(
        _ body: nonisolated(nonsending) (Connection) async throws -> T
    ) async throws -> T {
        let connection = try await acquire()
        let result: Result<T, any Error>
        do {
            result = .success(try await body(connection))
        } catch {
            result = .failure(error)
        }
        await release(connection)
        return try result.get()
    }

    /// Closes idle connections and fails waiters; connections in use close when returned.
    package func close() {
        let (idle, waiters) = state.withLock { $0.close() }
        for waiter in waiters {
            waiter.continuation.resume(throwing: PostgresError(code: .connectionClosed))
        }
        _ = idle  // dropping the last references finishes the connections
    }

    /// The loop of connections opened off every event loop, unless the pool was given a group.
    private static let sharedGroup: EventLoopGroup = {
        // A failure here means the process cannot create threads or epoll instances at all.
        try! EventLoopGroup(loopCount: 1, name: "rv-pg")
    }()

    nonisolated(nonsending) private func acquire() async throws -> Connection {
        // A loop being stopped would never answer the connection's queries.
        let loop = EventLoop.current.flatMap { $0.isStopping ? nil : $0 }
        while true {
            switch try await grant(on: loop) {
            case .connection(let connection):
                if connection.isReusable { return connection }
                logger.debug("postgres: discarding a broken idle connection",
                             metadata: ["backend_pid": "\(connection.backendPID)"])
                resume(state.withLock { $0.discard() })
            case .create:
                do {
                    let connection = try await Connection.connect(configuration, on: loop ?? group.next())
                    lastAnswered.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
                    return connection
                } catch {
                    resume(state.withLock { $0.discard() })
                    throw error
                }
            }
        }
    }

    nonisolated(nonsending) private func grant(on loop: EventLoop?) async throws -> PoolState.Grant {
        try Task.checkCancellation()
        // Most statements find a connection free: no continuation, cancellation handler or
        // waiter for them (this runs for every statement outside a transaction).
        switch state.withLock({ $0.acquireWithoutWaiting(on: loop) }) {
        case .grant(let grant): return grant
        case .fail(let error): throw error
        case .wait, nil: break
        }
        let id = nextWaiterID.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Monotonic nanoseconds since boot plus seconds: centuries from overflowing.
                let deadline = MonotonicClock.nanoseconds() &+ acquireTimeoutNanoseconds
                let waiter = PoolState.Waiter(id: id, continuation: continuation, loop: loop, deadline: deadline)
                switch state.withLock({ $0.acquire(waiter) }) {
                case .grant(let grant):
                    continuation.resume(returning: grant)
                case .fail(let error):
                    continuation.resume(throwing: error)
                case .wait(let startSweeper):
                    if startSweeper { sweepExpiredWaiters(firstDeadline: deadline) }
                }
            }
        } onCancel: {
            state.withLock { $0.removeWaiter(id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Fails waiters with `.poolTimeout` at their deadlines: one task while the queue is
    /// non-empty (FIFO is deadline order, so it sleeps until the oldest waiter's), rather than
    /// a timer per waiter.
    private func sweepExpiredWaiters(firstDeadline: UInt64) {
        Task { [weak self] in
            var next: UInt64? = firstDeadline
            while let deadline = next {
                let now = MonotonicClock.nanoseconds()
                if deadline > now { try? await Task.sleep(for: .nanoseconds(deadline - now)) }
                guard let self else { return }
                let (expired, following) = self.state.withLock { $0.expire(now: MonotonicClock.nanoseconds()) }
                for waiter in expired {
                    waiter.continuation.resume(throwing: PostgresError(code: .poolTimeout))
                }
                next = following
            }
        }
    }

    private var acquireTimeoutNanoseconds: UInt64 {
        UInt64(PostgresConfiguration.milliseconds(configuration.acquireTimeout)) * 1_000_000
    }

    nonisolated(nonsending) private func release(_ connection: Connection) async {
        var (broken, inTransaction) = connection.needsDiscardOrRollback
        if inTransaction, !broken {
            do {
                try await connection.executeScript("ROLLBACK")
            } catch {
                broken = true
            }
        }
        if broken {
            resume(state.withLock { $0.discard() })
        } else {
            let now = MonotonicClock.nanoseconds()
            lastAnswered.store(now, ordering: .relaxed)
            resume(state.withLock { $0.release(connection, now: now) })
        }
    }

    private func resume(_ handoff: (PoolState.Waiter, PoolState.Grant)?) {
        guard let (waiter, grant) = handoff else { return }
        waiter.continuation.resume(returning: grant)
    }
}
