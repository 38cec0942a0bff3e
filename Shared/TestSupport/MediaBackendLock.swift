/// Keeps media stacks of different blob backends (local folder, S3) from running at the same
/// time: they share one database, so any media applies any AccountDeleted or sweeps any upload,
/// and one with the other backend would look for the bytes in the wrong place. Stacks of one
/// backend run side by side. Suites run in one process, so a process-wide lock suffices.
package actor MediaBackendLock {
    package static let shared = MediaBackendLock()

    private var backend: String?
    private var holders = 0
    private var waiters: [(backend: String, continuation: CheckedContinuation<Void, Never>)] = []

    /// Returns once no stack of another backend runs; a holder of `backend` then.
    package func acquire(_ backend: String) async {
        // Joining the running backend only while nobody waits, so that the other backend gets its turn.
        if self.backend == nil || (self.backend == backend && waiters.isEmpty) {
            self.backend = backend
            holders += 1
            return
        }
        await withCheckedContinuation { waiters.append((backend, $0)) }
    }

    /// Ends one hold; the last holder hands over to the first waiter and every waiter of its backend.
    package func release() {
        holders -= 1
        guard holders == 0 else { return }
        backend = waiters.first?.backend
        let admitted = waiters.filter { $0.backend == backend }
        waiters.removeAll { $0.backend == backend }
        holders = admitted.count
        for waiter in admitted { waiter.continuation.resume() }
    }
}
