internal import CLibPQ
internal import CLinux
internal import Glibc
import IOLoop
import Synchronization

/// Owns one non-blocking `PGconn` and drives it on one event loop: the loop writes each request
/// (`PQsendQueryPrepared`, `PQflush`), wakes when the server answers, reads (`PQconsumeInput`)
/// and collects results (`PQgetResult` while `!PQisBusy`), then resumes the waiting task. A task
/// already running on that loop (a gRPC handler) never leaves its thread.
///
/// `PQfinish` runs in `deinit`, the one place the handle is freed, after `close()` has taken
/// the socket out of the loop. Connection loss — EOF or an error on the socket, in flight or
/// idle — marks the driver broken and takes the socket out of the loop at once, in the same
/// loop callback as the libpq call that noticed it, so a reused descriptor number is never
/// confused with ours.
final class ConnectionDriver: EventLoopHandler, @unchecked Sendable {
    // @unchecked Sendable: every `var` is read and written only on `loop` (the entry points are
    // called there: `Connection` hops first); `status` is behind a Mutex; the rest is immutable.

    /// What a caller asks for; the driver turns it into one or more round trips.
    enum Request: Sendable {
        case query(String, [PostgresValue])
        case script(String)
        case pipeline([PostgresStatement])
    }

    /// What the last request left behind, for the pool to read from any thread.
    struct Status {
        var isBroken = false
        var transaction = PQTRANS_IDLE
    }

    private struct StatementKey: Hashable {
        var sql: String
        var types: [UInt32]
    }

    /// One round trip: what is sent, and how its results end.
    private enum Step {
        case prepare(StatementKey, name: String)
        case execute(name: String, params: [PostgresValue])
        case script(String)
        case pipeline([(name: String, params: [PostgresValue])])
    }

    /// The request in flight: its round trips (`step` is on the wire) and what came back.
    private final class Operation {
        let steps: [Step]
        var next = 0
        var rows: [PostgresRows] = []
        var firstError: PostgresError?
        /// Pipeline only: query results still to be ended by a NULL before the sync point.
        var openSegments = 0
        let continuation: CheckedContinuation<[PostgresRows], any Error>

        init(steps: [Step], continuation: CheckedContinuation<[PostgresRows], any Error>) {
            self.steps = steps
            self.continuation = continuation
        }

        var step: Step { steps[next] }
    }

    let loop: EventLoop
    let backendPID: Int32
    let status = Mutex(Status())
    /// The connection's socket, fixed at open: libpq closes it (and `PQsocket` turns -1) when
    /// the connection drops.
    let socket: Int32
    private let handle: OpaquePointer
    private var isRegistered = false
    private var isWatchingWritable = false
    private var isClosed = false
    private var operation: Operation?
    private var statements: [StatementKey: String] = [:]
    private var nextStatement = 1

    /// Set by libpq's notice receiver, on the loop, when the server announced the end of the
    /// session while no request was in flight.
    private let notices = NoticeFlags()

    /// Takes ownership of `handle`, an open connection already in non-blocking mode.
    init(handle: OpaquePointer, loop: EventLoop) {
        self.handle = handle
        self.loop = loop
        self.socket = PQsocket(handle)
        self.backendPID = PQbackendPID(handle)
        // An idle connection's ErrorResponse (a terminated backend's FATAL, say) reaches libpq's
        // notice receiver, not a result; the socket's EOF may come only later. Safe: `notices`
        // is a property of this driver, which frees the handle (and so the receiver) in deinit.
        PQsetNoticeReceiver(handle, { argument, result in
            guard let argument, let result, let state = PQresultErrorField(result, clibpq_diag_sqlstate()) else { return }
            if LibPQ.endsSession(SQLState(rawValue: String(cString: state))) {
                Unmanaged<NoticeFlags>.fromOpaque(argument).takeUnretainedValue().sessionEnded = true
            }
        }, Unmanaged.passUnretained(notices).toOpaque())
    }

    deinit {
        PQfinish(handle)
    }

    // MARK: Entry points (loop thread only)

    /// Starts `request`; `continuation` is resumed on the loop when its last result is in.
    func start(_ request: Request, _ continuation: CheckedContinuation<[PostgresRows], any Error>) {
        loop.assertInLoop()
        guard operation == nil else {
            // The pool lends a connection to one task; two requests at once are a caller bug.
            continuation.resume(throwing: PostgresError(code: .protocolViolation, context: "connection busy"))
            return
        }
        guard !isClosed else { return continuation.resume(throwing: PostgresError(code: .connectionClosed)) }
        operation = Operation(steps: plan(request), continuation: continuation)
        guard !status.withLock({ $0.isBroken }), PQstatus(handle) == CONNECTION_OK else {
            return markBroken()
        }
        if !isRegistered {
            do {
                try loop.register(fd: socket, events: EPOLLIN.rawValue, handler: self)
                isRegistered = true
            } catch {
                return markBroken(failing: PostgresError(code: .connectionLost, context: "\(error)"))
            }
        }
        sendNextStep()
        settle()
    }

    /// Fails a request still in flight and takes the socket out of the loop; `deinit` finishes.
    func close() {
        loop.assertInLoop()
        isClosed = true
        if let operation {
            self.operation = nil
            operation.continuation.resume(throwing: PostgresError(code: .connectionClosed))
        }
        deregister()
    }

    func handleEvents(_ events: UInt32) {
        var inputFailed = false
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            inputFailed = PQconsumeInput(handle) == 0
        }
        if isWatchingWritable { flush() }
        if operation == nil {
            // Idle: a notice or a parameter change is consumed and dropped; EOF or an error
            // (a terminated backend, a restarted server) ends the connection. Parsing what came
            // (PQisBusy) hands a FATAL to the notice receiver at once, before its EOF arrives, so
            // the pool never lends a connection whose backend has said it is going.
            if !inputFailed { _ = PQisBusy(handle) }
            if inputFailed || notices.sessionEnded { markBroken() }
        } else {
            collectResults()
            if inputFailed, operation != nil { markBroken() }
        }
        settle()
    }

    // MARK: Sending

    /// The round trips for `request`: statements not yet prepared on this connection get a
    /// PREPARE first; later uses find the name in `statements`.
    private func plan(_ request: Request) -> [Step] {
        switch request {
        case .query(let sql, let params):
            var steps: [Step] = []
            let name = preparedName(sql, params, steps: &steps)
            steps.append(.execute(name: name, params: params))
            return steps
        case .script(let sql):
            return [.script(sql)]
        case .pipeline(let batch):
            var steps: [Step] = []
            let names = batch.map { preparedName($0.sql, $0.params, steps: &steps) }
            steps.append(.pipeline(zip(names, batch).map { (name: $0, params: $1.params) }))
            return steps
        }
    }

    private func preparedName(_ sql: String, _ params: [PostgresValue], steps: inout [Step]) -> String {
        let key = StatementKey(sql: sql, types: params.map(\.type.oid))
        if let name = statements[key] { return name }
        for case .prepare(let planned, let name) in steps where planned == key { return name }
        let name = "rv_\(nextStatement)"
        nextStatement += 1
        steps.append(.prepare(key, name: name))
        return name
    }

    private func sendNextStep() {
        guard let operation else { return }
        let sent: Bool
        switch operation.step {
        case .prepare(let key, let name):
            sent = PQsendPrepare(handle, name, key.sql, Int32(key.types.count), key.types) == 1
        case .execute(let name, let params):
            sent = send(name, params)
        case .script(let sql):
            sent = PQsendQuery(handle, sql) == 1
        case .pipeline(let batch):
            sent = sendPipeline(batch)
            operation.openSegments = batch.count
        }
        // A send fails only on a broken socket or in a libpq state we did not expect: either
        // way the connection is not trusted again.
        guard sent else { return markBroken(failing: lostOrViolation()) }
        flush()
        collectResults()  // a blocked write may have read the reply already
    }

    private func send(_ name: String, _ params: [PostgresValue]) -> Bool {
        LibPQ.withParameters(params) { values, lengths, formats in
            PQsendQueryPrepared(handle, name, Int32(params.count), values, lengths, formats, 1) == 1
        }
    }

    private func sendPipeline(_ batch: [(name: String, params: [PostgresValue])]) -> Bool {
        guard PQenterPipelineMode(handle) == 1 else { return false }
        for (name, params) in batch where !send(name, params) { return false }
        return PQpipelineSync(handle) == 1
    }

    /// Writes what libpq buffered; watches for writability only while some is left.
    private func flush() {
        switch PQflush(handle) {
        case 0:
            if isWatchingWritable { watch(writable: false) }
        case 1:
            if !isWatchingWritable { watch(writable: true) }
        default:
            markBroken()
        }
    }

    private func watch(writable: Bool) {
        isWatchingWritable = writable
        guard isRegistered else { return }
        loop.modify(fd: socket, events: writable ? EPOLLIN.rawValue | EPOLLOUT.rawValue : EPOLLIN.rawValue)
    }

    // MARK: Receiving

    /// Takes every result libpq has parsed, never blocking: `PQgetResult` only after
    /// `PQisBusy` says one is ready (or the command is over, signalled by NULL).
    private func collectResults() {
        while let operation, PQisBusy(handle) == 0 {
            let result = PQgetResult(handle)
            defer { PQclear(result) }
            if case .pipeline = operation.step {
                pipelineResult(result, of: operation)
            } else {
                stepResult(result, of: operation)
            }
        }
    }

    private func stepResult(_ result: OpaquePointer?, of operation: Operation) {
        guard let result else { return stepEnded(operation) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
            if case .execute = operation.step { operation.rows.append(LibPQ.rows(from: result)) }
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            // COPY is not supported; libpq would report the COPY state forever.
            markBroken(failing: PostgresError(code: .protocolViolation, context: "COPY is not supported"))
        default:
            if operation.firstError == nil { operation.firstError = LibPQ.error(from: result) }
        }
    }

    private func pipelineResult(_ result: OpaquePointer?, of operation: Operation) {
        guard let result else {
            // Each query's results end with NULL; one more than expected means libpq gave up.
            guard operation.openSegments > 0 else { return stepEnded(operation) }
            operation.openSegments -= 1
            return
        }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
            operation.rows.append(LibPQ.rows(from: result))
        case PGRES_PIPELINE_ABORTED:
            break
        case PGRES_PIPELINE_SYNC:
            PQexitPipelineMode(handle)
            stepEnded(operation)
        default:
            if operation.firstError == nil { operation.firstError = LibPQ.error(from: result) }
        }
    }

    /// The step on the wire is over: report its error, or cache what it prepared and send the next.
    private func stepEnded(_ operation: Operation) {
        if let error = operation.firstError { return finish(.failure(classify(error))) }
        switch operation.step {
        case .prepare(let key, let name):
            statements[key] = name
        case .execute:
            // A success always carries a result; none means the connection failed mid-way.
            if operation.rows.isEmpty { return finish(.failure(lostOrViolation())) }
        case .pipeline:
            if PQpipelineStatus(handle) != PQ_PIPELINE_OFF { return markBroken(failing: lostOrViolation()) }
        case .script:
            break
        }
        operation.next += 1
        guard operation.next < operation.steps.count else { return finish(.success(operation.rows)) }
        sendNextStep()
    }

    private func finish(_ result: Result<[PostgresRows], PostgresError>) {
        guard let operation else { return }
        self.operation = nil
        var broken = PQstatus(handle) != CONNECTION_OK
        if PQpipelineStatus(handle) != PQ_PIPELINE_OFF, PQexitPipelineMode(handle) != 1 { broken = true }
        let transaction = PQtransactionStatus(handle)
        status.withLock {
            $0.isBroken = $0.isBroken || broken
            $0.transaction = transaction
        }
        if broken { deregister() }
        operation.continuation.resume(with: result)
    }

    /// A server error as the caller sees it: errors that end the session become `.connectionLost`.
    private func classify(_ error: PostgresError) -> PostgresError {
        var error = error
        if PQstatus(handle) != CONNECTION_OK || LibPQ.endsSession(error.sqlState) {
            error.code = .connectionLost
            status.withLock { $0.isBroken = true }
        } else if error.sqlState == nil {
            error.code = .protocolViolation
        }
        return error
    }

    private func lostOrViolation() -> PostgresError {
        PostgresError(code: PQstatus(handle) == CONNECTION_OK ? .protocolViolation : .connectionLost)
    }

    // MARK: Breakage

    /// After every entry point: a connection libpq has dropped leaves the loop now.
    private func settle() {
        if PQstatus(handle) != CONNECTION_OK { markBroken() }
    }

    /// Ends the connection, and the request in flight with `error`. The status is marked
    /// broken before the request's task resumes, so the pool never takes the connection back.
    private func markBroken(failing error: PostgresError = PostgresError(code: .connectionLost)) {
        status.withLock { $0.isBroken = true }
        deregister()
        finish(.failure(error))
    }

    private func deregister() {
        guard isRegistered else { return }
        isRegistered = false
        isWatchingWritable = false
        loop.deregister(fd: socket)
    }
}

/// What libpq's notice receiver saw on one connection; touched only on the driver's loop.
private final class NoticeFlags: @unchecked Sendable {
    // @unchecked Sendable: written by the notice receiver, which libpq calls inside the
    // driver's own libpq calls, and read by the driver: both on the driver's loop.
    var sessionEnded = false
}
