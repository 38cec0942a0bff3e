internal import CLibPQ
internal import Foundation
internal import Glibc
package import IOLoop
internal import Synchronization

/// One pooled libpq connection, bound to one event loop for its whole life.
///
/// Every libpq call on it runs on that loop (see `ConnectionDriver`): a task already running
/// there — a gRPC handler — sends, waits and resumes on its own thread; a task elsewhere hops
/// to the loop to send and is resumed from it. Opening is the one blocking step; it runs on a
/// short-lived thread of its own.
///
/// A connection serves one task at a time: the pool hands it out exclusively.
package final class Connection: Sendable {
    /// The loop every libpq call on this connection runs on.
    let loop: EventLoop
    /// Where it connects, for its spans.
    let configuration: PostgresConfiguration
    private let driver: ConnectionDriver
    /// What the current `inTransaction` does at its COMMIT; nil outside one.
    private let commit = Mutex<CommitWork?>(nil)
    /// The `BEGIN` of the current `inTransaction`, not sent yet: it goes out in one round trip
    /// with the transaction's first statement (a pipeline), so a transaction costs one round
    /// trip less; a transaction that runs no statement sends neither it nor its COMMIT.
    private let pendingBegin = Mutex<String?>(nil)

    /// The server process serving this connection (`pg_backend_pid()`).
    package var backendPID: Int32 { driver.backendPID }

    private init(driver: ConnectionDriver, configuration: PostgresConfiguration) {
        self.loop = driver.loop
        self.configuration = configuration
        self.driver = driver
    }

    deinit {
        // The driver leaves the loop there; its deinit then finishes the PGconn.
        let driver = self.driver
        loop.execute { driver.close() }
    }

    /// Opens a connection (blocking, on a thread of its own) and binds it to `loop`.
    package static func connect(_ configuration: PostgresConfiguration, on loop: EventLoop) async throws -> Connection {
        let opened = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<OpenedHandle, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { () throws(PostgresError) in try OpenedHandle.open(configuration) })
            }
            thread.name = "pg-connect"
            thread.stackSize = 512 * 1024
            thread.start()
        }
        return Connection(driver: ConnectionDriver(handle: opened.pointer, loop: loop), configuration: configuration)
    }

    /// Runs a parameterised statement (prepared once per connection, then reused) and returns
    /// its rows. Values travel only as `params`, never inside `sql`.
    nonisolated(nonsending) package func query(_ sql: String, _ params: [PostgresValue] = []) async throws -> PostgresRows {
        // Non-empty: a query's reply without rows fails in the driver.
        try await run(.query(sql, params))[0]
    }

    /// Runs a parameterised statement and returns the number of rows it affected.
    @discardableResult
    nonisolated(nonsending) package func execute(_ sql: String, _ params: [PostgresValue] = []) async throws -> Int {
        try await query(sql, params).affectedRows
    }

    /// Runs SQL without parameters through the simple-query protocol, which allows several
    /// statements separated by semicolons (migrations, `BEGIN`, `COMMIT`). Never put values here.
    nonisolated(nonsending) package func executeScript(_ sql: String) async throws {
        _ = try await run(.script(sql))
    }

    nonisolated(nonsending) func run(_ request: ConnectionDriver.Request) async throws -> [PostgresRows] {
        guard let begin = pendingBegin.withLock({ pending in defer { pending = nil }; return pending }) else {
            return try await send(request)
        }
        switch request {
        case .query(let sql, let params):
            return Array(try await send(.pipeline([PostgresStatement(begin), PostgresStatement(sql, params)])).dropFirst())
        case .pipeline(let statements):
            return Array(try await send(.pipeline([PostgresStatement(begin)] + statements)).dropFirst())
        case .script(let sql):
            return try await send(.script(begin + ";\n" + sql))
        }
    }

    /// One round trip, in a span named by its statements' summary.
    nonisolated(nonsending) private func send(_ request: ConnectionDriver.Request) async throws -> [PostgresRows] {
        // A stopped loop would never answer.
        guard !loop.isStopping else { throw PostgresError(code: .connectionClosed) }
        return try await PostgresSpan.withRoundTrip(configuration, summary: { request.summary }) {
            try await withCheckedThrowingContinuation { continuation in
                loop.executeSoon { [driver] in driver.start(request, continuation) }
            }
        }
    }

    /// Opens a transaction with `begin` (a `BEGIN …` statement) sent along with the next
    /// statement rather than on its own.
    func deferBegin(_ begin: String) { pendingBegin.withLock { $0 = begin } }

    /// Drops a `BEGIN` not sent yet: true when there was one (the transaction never started).
    func dropPendingBegin() -> Bool {
        pendingBegin.withLock { pending in
            defer { pending = nil }
            return pending != nil
        }
    }

    /// Runs `action` after the transaction this connection is in (one begun by
    /// `PostgresPool.withTransaction`) commits, and never if it rolls back. Returns false, and
    /// keeps nothing, when the connection is not in such a transaction (autocommit, or a
    /// `BEGIN` of the caller's own): there is then no commit to wait for.
    package func afterCommit(_ action: @escaping @Sendable () -> Void) -> Bool {
        commit.withLock { work in
            guard work != nil else { return false }
            work?.actions.append(action)
            return true
        }
    }

    /// Runs `statement` just before the COMMIT of the transaction this connection is in (one
    /// begun by `PostgresPool.withTransaction`), in one pipeline with it: a write whose result
    /// nobody reads (an outbox event) then costs no round trip of its own. If it fails, the
    /// transaction rolls back and `withTransaction` throws its error. Returns false, and keeps
    /// nothing, outside such a transaction: the caller runs the statement itself.
    package func atCommit(_ statement: PostgresStatement) -> Bool {
        commit.withLock { work in
            guard work != nil else { return false }
            work?.statements.append(statement)
            return true
        }
    }

    /// Runs `statement` with the COMMIT of the transaction this connection is in (`atCommit`),
    /// or at once outside such a transaction: a write nothing reads before the commit.
    nonisolated(nonsending) package func executeAtCommit(_ statement: PostgresStatement) async throws {
        if !atCommit(statement) {
            _ = try await query(statement.sql, statement.params)
        }
    }

    func beginTrackingCommit() { commit.withLock { $0 = CommitWork() } }

    /// The statements queued by `atCommit`, handed over once.
    func takeCommitStatements() -> [PostgresStatement] {
        commit.withLock { work in
            defer { work?.statements = [] }
            return work?.statements ?? []
        }
    }

    /// The actions registered since `beginTrackingCommit`, handed over once; nil from then on.
    func endTrackingCommit() -> [@Sendable () -> Void] {
        commit.withLock { work in
            defer { work = nil }
            return work?.actions ?? []
        }
    }

    /// True when the connection was seen broken, or holds an open or failed transaction.
    var needsDiscardOrRollback: (broken: Bool, inTransaction: Bool) {
        driver.status.withLock { ($0.isBroken, $0.transaction != PQTRANS_IDLE) }
    }

    var isBroken: Bool { driver.status.withLock { $0.isBroken } }

    var isInFailedTransaction: Bool { driver.status.withLock { $0.transaction == PQTRANS_INERROR } }

    /// Cheap check before reuse: its loop still runs, and the idle connection has nothing to
    /// read. A terminated backend or a restarted server leaves an error message and EOF on the
    /// socket; the loop usually sees that first and marks the connection broken. Polls the
    /// descriptor only, from any thread: the `PGconn` itself is the loop's.
    var isReusable: Bool {
        var descriptor = pollfd(fd: driver.socket, events: Int16(POLLIN), revents: 0)
        guard !isBroken, !loop.isStopping, descriptor.fd >= 0, poll(&descriptor, 1, 0) == 0 else { return false }
        return !isBroken  // again: the loop may have dropped the socket while we polled
    }
}

/// A `PGconn` in transit from the thread that opened it to its owning `ConnectionDriver`.
private struct OpenedHandle: @unchecked Sendable {
    // @unchecked Sendable: handed over exactly once, and used afterwards only on the driver's loop.
    let pointer: OpaquePointer

    /// Connects (blocking) and switches the connection to non-blocking mode.
    static func open(_ configuration: PostgresConfiguration) throws(PostgresError) -> OpenedHandle {
        let pointer = try LibPQ.open(configuration)
        guard PQsetnonblocking(pointer, 1) == 0 else {
            PQfinish(pointer)
            throw PostgresError(code: .connectionFailed, context: "cannot enter non-blocking mode")
        }
        return OpenedHandle(pointer: pointer)
    }
}

/// What one `inTransaction` does at its COMMIT: statements sent with it, actions run after it.
private struct CommitWork {
    var statements: [PostgresStatement] = []
    var actions: [@Sendable () -> Void] = []
}
