/// Serializes the test suites that run a push-sending deployment (messaging with a fake APNs):
/// they share messaging's push queue in the one test database, so a second deployment's workers
/// would take the first one's jobs and send them to the other fake. Suites run in one process,
/// so a process-wide lock suffices.
package actor PushDeploymentLock {
    package static let shared = PushDeploymentLock()

    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` while no other holder runs.
    package static func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await shared.acquire()
        do {
            let result = try await body()
            await shared.release()
            return result
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Hands the lock to the next waiter, if any (it stays busy), else frees it.
    private func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
