/// The pool's bookkeeping, kept free of I/O: each method is one transition, called under the
/// pool's lock, returning what the caller must do after unlocking (resume a waiter, close…).
struct PoolState {
    /// What a waiter is given: an idle connection, or the right to open a new one.
    enum Grant: Sendable {
        case connection(Connection)
        case create
    }

    struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Grant, any Error>
        var timer: Task<Void, Never>?
    }

    enum AcquireAction {
        case grant(Grant)
        case wait
        case fail(PostgresError)
    }

    let capacity: Int
    private(set) var idle: [Connection] = []
    /// Connections open or being opened, idle or in use.
    private(set) var open = 0
    /// FIFO: the longest waiter is served first.
    private(set) var waiters: [Waiter] = []
    private(set) var isClosed = false

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func acquire(_ waiter: Waiter) -> AcquireAction {
        if isClosed { return .fail(PostgresError(code: .connectionClosed)) }
        if let connection = idle.popLast() { return .grant(.connection(connection)) }
        if open < capacity {
            open += 1
            return .grant(.create)
        }
        waiters.append(waiter)
        return .wait
    }

    /// Attaches a waiter's timeout task; false if the waiter was already served.
    mutating func attachTimer(_ timer: Task<Void, Never>, to id: Int) -> Bool {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return false }
        waiters[index].timer = timer
        return true
    }

    /// Removes a waiter that timed out or was cancelled; nil if it was served meanwhile.
    mutating func removeWaiter(_ id: Int) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index)
    }

    /// A healthy connection comes back: to the first waiter, else to the idle list.
    /// Returns the waiter to resume, or the connection to drop when the pool is closed.
    mutating func release(_ connection: Connection) -> (Waiter, Grant)? {
        if isClosed {
            open -= 1
            return nil
        }
        if !waiters.isEmpty { return (waiters.removeFirst(), .connection(connection)) }
        idle.append(connection)
        return nil
    }

    /// A connection was dropped (broken, or it failed to open): its slot goes to the first
    /// waiter, who will open a new one.
    mutating func discard() -> (Waiter, Grant)? {
        open -= 1
        guard !isClosed, !waiters.isEmpty else { return nil }
        open += 1
        return (waiters.removeFirst(), .create)
    }

    mutating func close() -> (idle: [Connection], waiters: [Waiter]) {
        isClosed = true
        defer {
            open -= idle.count
            idle = []
            waiters = []
        }
        return (idle, waiters)
    }
}
