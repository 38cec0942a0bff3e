#if canImport(Glibc)
import Glibc
internal import CLinux
#endif
import Synchronization

/// Something registered with an event loop for readiness events on a file descriptor.
///
/// Called on the loop's thread only.
package protocol EventLoopHandler: AnyObject {
    /// Handles the epoll events (`EPOLLIN`, `EPOLLOUT`, `EPOLLHUP`, `EPOLLERR`) reported for the descriptor.
    func handleEvents(_ events: UInt32)
}

/// Something that wants to run once at the end of the current loop iteration (e.g. to flush output).
package protocol EventLoopFlushable: AnyObject {
    func flushAtEndOfIteration()
}

/// A single-threaded epoll event loop that is also a Swift `TaskExecutor`.
///
/// Every nghttp2 session and socket belongs to exactly one loop and is touched only on its thread.
/// Other threads hand it work through one FIFO queue and one eventfd wakeup; Swift jobs and
/// closures share that queue, so work submitted from one task keeps its order.
package final class EventLoop: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `pending` is behind a Mutex; every other stored property is either
    // immutable after `init` or touched only on the loop thread (checked by `assertInLoop`).

    private enum Work: Sendable {
        case closure(@Sendable () -> Void)
        case job(UnownedJob)
    }

    private struct Pending: ~Copyable {
        var work: [Work] = []
        var wakeupRequested = false
        var stopping = false
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let pending = Mutex(Pending())
    /// The loop thread's id (`pthread_t` is an integer on Linux); 0 until the thread runs.
    private let loopThread = Atomic<UInt>(0)
    private let stopRequested = Atomic<Bool>(false)

    // Unchecked: the loop thread's own, read and written by the loop's methods alone, none of
    // which reaches another while it holds one (a handler, job or flush runs after its lookup
    // or swap is over). Checked, they cost about 1,500 instructions a call.
    @exclusivity(unchecked) private var handlers: [Int32: any EventLoopHandler] = [:]
    @exclusivity(unchecked) private var flushables: [any EventLoopFlushable] = []
    @exclusivity(unchecked) private var timers = TimerHeap()
    @exclusivity(unchecked) private var drainBuffer: [Work] = []

    /// A name for logs and thread names.
    package let name: String

    /// Creates a loop and starts its thread.
    package init(name: String) throws {
        self.name = name
        let epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SocketError.system("epoll_create1", errno) }
        let efd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard efd >= 0 else {
            close(epfd)
            throw SocketError.system("eventfd", errno)
        }
        self.epollFD = epfd
        self.wakeFD = efd
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = efd
        guard epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &event) == 0 else {
            close(epfd)
            close(efd)
            throw SocketError.system("epoll_ctl", errno)
        }
        try startThread()
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    private func startThread() throws {
        let box = Unmanaged.passRetained(self)
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { arg in
            // Safe: `arg` is the retained loop passed below; released when the loop ends.
            let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
            loop.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw SocketError.system("pthread_create", rc)
        }
        pthread_detach(tid)
    }

    /// True when called on this loop's thread.
    package var inEventLoop: Bool {
        loopThread.load(ordering: .relaxed) == pthread_self()
    }

    /// The loop whose thread is calling, or nil off every loop thread: lets a client bind its
    /// I/O to the loop its caller already runs on (a handler task with this loop as executor).
    package static var current: EventLoop? {
        // Safe: set by `run` to this thread's loop, which `run`'s caller keeps retained until
        // `run` clears the slot on its way out.
        pthread_getspecific(currentLoopKey).map { Unmanaged<EventLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    package func assertInLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "not on event loop \(name)", file: file, line: line)
    }

    // MARK: Submitting work

    /// Runs `work` on the loop thread, after work submitted before it.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        enqueueWork(.closure(work))
    }

    /// Runs `work` now when already on the loop thread, otherwise queues it.
    package func executeSoon(_ work: @escaping @Sendable () -> Void) {
        if inEventLoop { work() } else { enqueueWork(.closure(work)) }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        enqueueWork(.job(UnownedJob(job)))
    }

    private func enqueueWork(_ work: Work) {
        let needsWakeup = pending.withLock { state -> Bool in
            state.work.append(work)
            if state.wakeupRequested { return false }
            state.wakeupRequested = true
            return true
        }
        if needsWakeup && !inEventLoop {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// True once `stop()` was called: work submitted from now on may never run.
    package var isStopping: Bool {
        stopRequested.load(ordering: .relaxed)
    }

    /// Asks the loop to finish its queued work and end its thread.
    package func stop() {
        stopRequested.store(true, ordering: .relaxed)
        pending.withLock { $0.stopping = true }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: Registration (loop thread only)

    /// Registers `handler` for `events` on `fd`.
    package func register(fd: Int32, events: UInt32, handler: any EventLoopHandler) throws {
        assertInLoop()
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            throw SocketError.system("epoll_ctl(ADD)", errno)
        }
        handlers[fd] = handler
    }

    /// Changes the events a registered descriptor is watched for.
    package func modify(fd: Int32, events: UInt32) {
        assertInLoop()
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Removes a descriptor; the caller closes it.
    package func deregister(fd: Int32) {
        assertInLoop()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        handlers[fd] = nil
    }

    /// Calls `flushAtEndOfIteration` on `flushable` once, after this iteration's events and work.
    package func scheduleFlush(_ flushable: any EventLoopFlushable) {
        assertInLoop()
        flushables.append(flushable)
    }

    // MARK: Timers (loop thread only)

    /// Runs `body` on the loop after `nanoseconds`; returns an id for `cancelTimer`.
    @discardableResult
    package func scheduleTimer(afterNanoseconds nanoseconds: UInt64, _ body: @escaping () -> Void) -> TimerID {
        assertInLoop()
        // Saturating: a wrapped sum would lie in the past and fire the timer at once.
        let (deadline, overflow) = MonotonicClock.nanoseconds().addingReportingOverflow(nanoseconds)
        return timers.schedule(at: overflow ? UInt64.max : deadline, body)
    }

    package func cancelTimer(_ id: TimerID) {
        assertInLoop()
        timers.cancel(id)
    }

    // MARK: The loop

    private func run() {
        loopThread.store(pthread_self(), ordering: .releasing)
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(currentLoopKey, nil) }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            // Work queued from this thread skips the eventfd (see `enqueueWork`); when a timer
            // body or an end-of-iteration flush queued some (a flush resuming a suspended
            // writer, say), poll without blocking so it runs now, not at the next unrelated event.
            let hasWork = pending.withLock { !$0.work.isEmpty }
            let timeout = hasWork ? 0 : timers.millisecondsUntilNext(now: MonotonicClock.nanoseconds())
            let count = events.withUnsafeMutableBufferPointer { buffer in
                // Safe: the buffer has 256 elements and epoll writes at most that many.
                epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            if count > 0 {
                for index in 0..<Int(count) {
                    let event = events[index]
                    let fd = event.data.fd
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = read(wakeFD, &value, 8)
                        continue
                    }
                    // Look up first: the handler may deregister itself (mutating `handlers`).
                    let handler = handlers[fd]
                    handler?.handleEvents(event.events)
                }
            }
            // Taken out first: a timer's body may schedule or cancel timers.
            for body in timers.takeExpired(now: MonotonicClock.nanoseconds()) { body() }
            if drainPending() { break }
            runFlushes()
        }
        handlers.removeAll()
        flushables.removeAll()
    }

    /// Runs queued work; returns true when the loop should end.
    private func drainPending() -> Bool {
        // Work queued while draining runs in this iteration too, so a task that hops between
        // this loop and an actor does not wait for an epoll round trip per hop.
        for _ in 0..<64 {
            var stopping = false
            pending.withLock { state in
                swap(&drainBuffer, &state.work)
                state.wakeupRequested = false
                stopping = state.stopping
            }
            if drainBuffer.isEmpty { return stopping }
            for work in drainBuffer {
                switch work {
                case .closure(let body): body()
                case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
            drainBuffer.removeAll(keepingCapacity: true)
            runFlushes()
        }
        // Still busy: make sure epoll_wait returns at once to continue.
        pending.withLock { state in
            if !state.work.isEmpty && !state.wakeupRequested {
                state.wakeupRequested = true
                var one: UInt64 = 1
                _ = write(wakeFD, &one, 8)
            }
        }
        return false
    }

    private func runFlushes() {
        while !flushables.isEmpty {
            let batch = flushables
            flushables.removeAll(keepingCapacity: true)
            for flushable in batch { flushable.flushAtEndOfIteration() }
        }
    }
}

/// The thread-specific slot behind `EventLoop.current`.
private let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    // Fails only when the process ran out of keys (PTHREAD_KEYS_MAX, 1024), at start-up.
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
    return key
}()
