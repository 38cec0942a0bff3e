/// Where the client keeps the signed-in session between launches (the Keychain in an iOS app;
/// `FileTokenStore` or `InMemoryTokenStore` here).
///
/// The client reads the store once, then keeps its own copy and writes every change through:
/// sign-in and each refresh save, sign-out and a refused refresh clear. Give each client its own
/// store. Implementations must be safe to call from any thread.
public protocol TokenStore: Sendable {
    /// The saved session; nil when signed out. A store that cannot make sense of what it holds
    /// returns nil (the user signs in again) rather than throwing.
    func load() throws -> StoredSession?
    /// Replaces the saved session.
    func save(_ session: StoredSession) throws
    /// Forgets the session.
    func clear() throws
}
