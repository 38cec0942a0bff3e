package import Logging
import Synchronization

/// A bounded pool of libpq connections with a FIFO wait queue.
///
/// Threading: every connection owns one dedicated OS thread that runs its blocking libpq
/// calls (`WorkerThread`); a task using a connection suspends on a continuation while that
/// thread works, so libpq never blocks Swift's cooperative pool. We chose this over libpq's
/// non-blocking mode driven by an epoll loop because it keeps the whole blocking API of libpq
/// (connect, prepare, COPY-free queries, errors) simple and obviously correct, and its costs
/// are small at our pool sizes: one mostly-sleeping thread per connection (a 512 KiB stack)
/// and one thread hop per statement, a few microseconds next to a localhost round trip of
/// tens of microseconds. The listener, which waits on its socket indefinitely, uses the
/// same idea with `poll` on its own thread.
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
    private let logger: Logger
    private let state: Mutex<PoolState>
    private let nextWaiterID = Atomic<Int>(0)

    package init(configuration: PostgresConfiguration,
                 logger: Logger = Logger(label: "rendezvous.postgres")) {
        self.configuration = configuration
        self.logger = logger
        self.state = Mutex(PoolState(capacity: configuration.poolSize))
    }

    package var stats: Stats {
        state.withLock { state in
            Stats(size: state.capacity, open: state.open, idle: state.idle.count,
                  inUse: state.open - state.idle.count, waiters: state.waiters.count)
        }
    }

    /// Lends a connection to `body` and takes it back afterwards, rolling back any transaction
    /// `body` left open. Waits at most `acquireTimeout` for one (then `.poolTimeout`).
    @discardableResult
    nonisolated(nonsending) package func withConnection<T>(
        _ body: (Connection) async throws -> T
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
            waiter.timer?.cancel()
            waiter.continuation.resume(throwing: PostgresError(code: .connectionClosed))
        }
        _ = idle  // dropping the last references finishes the connections
    }

    private func acquire() async throws -> Connection {
        while true {
            switch try await grant() {
            case .connection(let connection):
                if connection.isReusable { return connection }
                logger.debug("postgres: discarding a broken idle connection",
                             metadata: ["backend_pid": "\(connection.backendPID)"])
                resume(state.withLock { $0.discard() })
            case .create:
                do {
                    return try await Connection.connect(configuration)
                } catch {
                    resume(state.withLock { $0.discard() })
                    throw error
                }
            }
        }
    }

    private func grant() async throws -> PoolState.Grant {
        try Task.checkCancellation()
        let id = nextWaiterID.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let waiter = PoolState.Waiter(id: id, continuation: continuation)
                switch state.withLock({ $0.acquire(waiter) }) {
                case .grant(let grant):
                    continuation.resume(returning: grant)
                case .fail(let error):
                    continuation.resume(throwing: error)
                case .wait:
                    startTimer(for: id)
                }
            }
        } onCancel: {
            if let waiter = state.withLock({ $0.removeWaiter(id) }) {
                waiter.timer?.cancel()
                waiter.continuation.resume(throwing: CancellationError())
            }
        }
    }

    private func startTimer(for id: Int) {
        let timeout = configuration.acquireTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled, let self,
                  let waiter = self.state.withLock({ $0.removeWaiter(id) }) else { return }
            waiter.continuation.resume(throwing: PostgresError(code: .poolTimeout))
        }
        if !state.withLock({ $0.attachTimer(timer, to: id) }) { timer.cancel() }
    }

    private func release(_ connection: Connection) async {
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
            resume(state.withLock { $0.release(connection) })
        }
    }

    private func resume(_ handoff: (PoolState.Waiter, PoolState.Grant)?) {
        guard let (waiter, grant) = handoff else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: grant)
    }
}
