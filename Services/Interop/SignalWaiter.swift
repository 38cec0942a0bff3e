#if canImport(Glibc)
import Glibc
#endif

/// Waits for one of a set of signals on a dedicated thread (sigwait), so that the signal
/// arrives as an ordinary async result instead of in a signal handler.
final class SignalWaiter: Sendable {
    private let signals: [Int32]

    /// Blocks `signals` for the whole process; call before other threads start.
    init(signals: [Int32]) {
        self.signals = signals
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Returns the first of the signals to arrive.
    func wait() async -> Int32 {
        let signals = self.signals
        return await withCheckedContinuation { continuation in
            let box = Unmanaged.passRetained(SignalWaiterBox(signals: signals, continuation: continuation))
            var thread = pthread_t()
            pthread_create(&thread, nil, { argument in
                // Safe: the box was retained for this thread and is released here.
                let box = Unmanaged<SignalWaiterBox>.fromOpaque(argument!).takeRetainedValue()
                var set = sigset_t()
                sigemptyset(&set)
                for signal in box.signals { sigaddset(&set, signal) }
                var received: Int32 = 0
                sigwait(&set, &received)
                box.continuation.resume(returning: received)
                return nil
            }, box.toOpaque())
            pthread_detach(thread)
        }
    }
}

private final class SignalWaiterBox {
    let signals: [Int32]
    let continuation: CheckedContinuation<Int32, Never>

    init(signals: [Int32], continuation: CheckedContinuation<Int32, Never>) {
        self.signals = signals
        self.continuation = continuation
    }
}
