internal import CLibPQ
internal import Glibc
import Synchronization

/// One libpq connection (`PGconn`), owned here and finished in `deinit`, the one place it is
/// freed. Every libpq call on it runs on its own `WorkerThread`, never on Swift's cooperative
/// pool; async methods suspend until the worker is done.
///
/// A connection serves one task at a time: the pool hands it out exclusively.
package final class Connection: @unchecked Sendable {
    // @unchecked Sendable: `handle`, `statements` and `nextStatement` are touched only inside
    // jobs on `worker`, which runs them one at a time (plus `isReusable`, which the pool calls
    // only while no job can run); everything else is immutable or behind a Mutex.
    private let handle: OpaquePointer
    private let worker: WorkerThread
    private var statements: [StatementKey: String] = [:]
    private var nextStatement = 1
    private let observed = Mutex(Observed())

    /// The server process serving this connection (`pg_backend_pid()`).
    package let backendPID: Int32

    private struct StatementKey: Hashable {
        var sql: String
        var types: [UInt32]
    }

    /// What the last job saw, for the pool to read without a thread hop.
    private struct Observed {
        var isBroken = false
        var transaction = PQTRANS_IDLE
    }

    private init(handle: OpaquePointer, worker: WorkerThread) {
        self.handle = handle
        self.worker = worker
        self.backendPID = PQbackendPID(handle)
    }

    deinit {
        PQfinish(handle)
        worker.stop()
    }

    /// Opens a connection on a new worker thread.
    package static func connect(_ configuration: PostgresConfiguration) async throws -> Connection {
        let worker = WorkerThread(name: "pg-\(configuration.applicationName)")
        do {
            let opened = try await worker.run { try OpenedHandle(LibPQ.open(configuration)) }
            return Connection(handle: opened.pointer, worker: worker)
        } catch {
            worker.stop()
            throw error
        }
    }

    /// Runs a parameterised statement (prepared once per connection, then reused) and returns
    /// its rows. Values travel only as `params`, never inside `sql`.
    package func query(_ sql: String, _ params: [PostgresValue] = []) async throws -> PostgresRows {
        try await onWorker { connection throws(PostgresError) in try connection.runPrepared(sql, params) }
    }

    /// Runs a parameterised statement and returns the number of rows it affected.
    @discardableResult
    package func execute(_ sql: String, _ params: [PostgresValue] = []) async throws -> Int {
        try await query(sql, params).affectedRows
    }

    /// Runs SQL without parameters through the simple-query protocol, which allows several
    /// statements separated by semicolons (migrations, `BEGIN`, `COMMIT`). Never put values here.
    package func executeScript(_ sql: String) async throws {
        try await onWorker { connection throws(PostgresError) in
            let result = PQexec(connection.handle, sql)
            defer { PQclear(result) }
            try connection.check(result)
        }
    }

    /// True when the connection was seen broken, or holds an open or failed transaction.
    var needsDiscardOrRollback: (broken: Bool, inTransaction: Bool) {
        observed.withLock { ($0.isBroken, $0.transaction != PQTRANS_IDLE) }
    }

    var isBroken: Bool { observed.withLock { $0.isBroken } }

    var isInFailedTransaction: Bool { observed.withLock { $0.transaction == PQTRANS_INERROR } }

    /// Cheap check before reuse: an idle connection must have nothing to read. A terminated
    /// backend or a restarted server leaves an error message and EOF on the socket.
    /// Called only while the connection sits idle in the pool (no job running).
    var isReusable: Bool {
        guard !isBroken else { return false }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { return false }
        return poll(&descriptor, 1, 0) == 0
    }

    func onWorker<T: Sendable>(_ body: @escaping @Sendable (Connection) throws(PostgresError) -> T) async throws -> T {
        try await worker.run { [self] in
            defer { recordStatus() }
            return try body(self)
        }
    }

    private func recordStatus() {
        let broken = PQstatus(handle) != CONNECTION_OK
        let transaction = PQtransactionStatus(handle)
        observed.withLock {
            $0.isBroken = $0.isBroken || broken
            $0.transaction = transaction
        }
    }

    /// The name of `sql` prepared for these parameter types, preparing it on first use.
    private func preparedName(_ sql: String, _ params: [PostgresValue]) throws(PostgresError) -> String {
        let types = params.map(\.type.oid)
        let key = StatementKey(sql: sql, types: types)
        if let cached = statements[key] { return cached }
        let name = "rv_\(nextStatement)"
        let result = PQprepare(handle, name, sql, Int32(params.count), types)
        defer { PQclear(result) }
        try check(result)
        nextStatement += 1
        statements[key] = name
        return name
    }

    func runPipeline(_ batch: [PostgresStatement]) throws(PostgresError) -> [PostgresRows] {
        guard PQstatus(handle) == CONNECTION_OK else { throw PostgresError(code: .connectionLost) }
        var names: [String] = []
        for statement in batch { names.append(try preparedName(statement.sql, statement.params)) }
        do {
            return try runPipelineOnWorker(handle, batch, names: names)
        } catch {
            if PQstatus(handle) != CONNECTION_OK {
                observed.withLock { $0.isBroken = true }
                throw PostgresError(code: .connectionLost, sqlState: error.sqlState)
            }
            throw error
        }
    }

    private func runPrepared(_ sql: String, _ params: [PostgresValue]) throws(PostgresError) -> PostgresRows {
        guard PQstatus(handle) == CONNECTION_OK else { throw PostgresError(code: .connectionLost) }
        let name = try preparedName(sql, params)
        let result = LibPQ.withParameters(params) { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(params.count), values, lengths, formats, 1)
        }
        defer { PQclear(result) }
        try check(result)
        return LibPQ.rows(from: result!)  // check() throws for a nil result
    }

    /// Throws unless `result` is a success; classifies lost connections.
    private func check(_ result: OpaquePointer?) throws(PostgresError) {
        guard let result else {
            throw PostgresError(code: PQstatus(handle) == CONNECTION_OK ? .protocolViolation : .connectionLost)
        }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return }
        var error = LibPQ.error(from: result)
        if PQstatus(handle) != CONNECTION_OK || LibPQ.endsSession(error.sqlState) {
            error.code = .connectionLost
            observed.withLock { $0.isBroken = true }
        } else if error.sqlState == nil {
            error.code = .protocolViolation
        }
        throw error
    }
}

/// A `PGconn` pointer in transit from the worker that opened it to its owning `Connection`.
private struct OpenedHandle: @unchecked Sendable {
    // @unchecked Sendable: handed over exactly once, and used afterwards only on that worker.
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
