import Synchronization

/// A token store that forgets the session when the process ends: tests, previews, and apps that
/// want a sign-in per launch.
public final class InMemoryTokenStore: TokenStore {
    private let session: Mutex<StoredSession?>

    /// A store holding `session` (nil: signed out).
    public init(_ session: StoredSession? = nil) {
        self.session = Mutex(session)
    }

    public func load() -> StoredSession? { session.withLock { $0 } }

    public func save(_ session: StoredSession) { self.session.withLock { $0 = session } }

    public func clear() { session.withLock { $0 = nil } }
}
