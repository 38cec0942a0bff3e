import IOLoop

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
        /// The event loop the waiting task runs on, if any.
        var loop: EventLoop?
        /// When it gave up: `acquireTimeout` after it started waiting (monotonic nanoseconds).
        var deadline: UInt64
    }

    enum AcquireAction {
        case grant(Grant)
        /// Queued; `startSweeper` when no sweeper is watching the queue's deadlines yet.
        case wait(startSweeper: Bool)
        case fail(PostgresError)
    }

    let capacity: Int
    /// A released connection goes to a waiter on its own loop before older waiters on other
    /// loops when that waiter started at most this long (nanoseconds) after the oldest one:
    /// locality saves two thread hops per statement, and the bound keeps the queue fair when
    /// one loop holds more connections than another.
    let maxOvertake: UInt64
    private(set) var idle: [Connection] = []
    /// Connections open or being opened, idle or in use.
    private(set) var open = 0
    /// FIFO, which is also deadline order (every waiter waits the same `acquireTimeout`).
    private(set) var waiters: [Waiter] = []
    private(set) var isClosed = false
    /// True while a sweeper task times out waiters; at most one runs.
    private var isSweeping = false

    init(capacity: Int, maxOvertake: UInt64 = 2_000_000) {
        self.capacity = max(1, capacity)
        self.maxOvertake = maxOvertake
    }

    /// Locality first when the caller runs on an event loop: an idle connection bound to that
    /// loop, else a new one (it will be bound there) while there is room, else any idle one.
    /// Without a loop: any idle connection before a new one.
    mutating func acquire(_ waiter: Waiter) -> AcquireAction {
        if let action = acquireWithoutWaiting(on: waiter.loop) { return action }
        waiters.append(waiter)
        defer { isSweeping = true }
        return .wait(startSweeper: !isSweeping)
    }

    /// `acquire` for a caller that is not queued yet: the grant or failure it would get at once,
    /// or nil when it would have to wait (it then calls `acquire` with a waiter).
    mutating func acquireWithoutWaiting(on loop: EventLoop?) -> AcquireAction? {
        if isClosed { return .fail(PostgresError(code: .connectionClosed)) }
        if let loop, let index = idle.lastIndex(where: { $0.loop === loop }) {
            return .grant(.connection(idle.remove(at: index)))
        }
        if loop != nil, open < capacity {
            open += 1
            return .grant(.create)
        }
        if let connection = idle.popLast() { return .grant(.connection(connection)) }
        if open < capacity {
            open += 1
            return .grant(.create)
        }
        return nil
    }

    /// Removes a waiter that was cancelled; nil if it was served meanwhile.
    mutating func removeWaiter(_ id: Int) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index)
    }

    /// Removes the waiters whose deadline has passed at `now`, and says when to look again
    /// (nil: the queue is empty and the sweeper ends; the next waiter starts a new one).
    mutating func expire(now: UInt64) -> (expired: [Waiter], next: UInt64?) {
        let due = waiters.prefix { $0.deadline <= now }.count
        let expired = Array(waiters.prefix(due))
        waiters.removeFirst(due)
        if let first = waiters.first { return (expired, first.deadline) }
        isSweeping = false
        return (expired, nil)
    }

    /// A healthy connection comes back: to a waiter (see `maxOvertake`), else to the idle list.
    /// Returns the waiter to resume; nothing when the pool is closed (the caller drops it).
    mutating func release(_ connection: Connection, now: UInt64) -> (Waiter, Grant)? {
        if isClosed {
            open -= 1
            return nil
        }
        guard let oldest = waiters.first else {
            idle.append(connection)
            return nil
        }
        var index = 0
        if oldest.loop !== connection.loop, now < oldest.deadline,
           let local = waiters.firstIndex(where: { $0.loop === connection.loop }),
           waiters[local].deadline < oldest.deadline &+ maxOvertake {  // nanoseconds since boot: no overflow
            index = local
        }
        return (waiters.remove(at: index), .connection(connection))
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
