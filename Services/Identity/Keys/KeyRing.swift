import Auth
import CryptoCore
import Synchronization

/// The signing keys in memory: the one that signs now and every published public key.
/// `SigningKeyStore.refresh` replaces the contents; readers never wait on the database.
final class KeyRing: Sendable {
    private struct State {
        var signing: ECSigningKey?
        var published: [ECVerifyingKey] = []
    }

    private let state = Mutex(State())

    init() {}

    /// The key new access tokens are signed with.
    func signingKey() throws -> ECSigningKey {
        guard let key = state.withLock({ $0.signing }) else {
            throw CryptoError(.invalidParameters, "no active signing key")
        }
        return key
    }

    /// Public keys verifiers must accept: past keys whose tokens may still be valid, the
    /// current one, and a successor published ahead of its use.
    var publishedKeys: [ECVerifyingKey] { state.withLock { $0.published } }

    func replace(signing: ECSigningKey, published: [ECVerifyingKey]) {
        state.withLock { $0 = State(signing: signing, published: published) }
    }
}

/// The verifier's key source inside Identity itself: the ring, without a network hop.
struct KeyRingSource: SigningKeySource {
    let ring: KeyRing
    let maxAge: Duration

    func fetchKeys() async throws -> (keys: JWKSet, maxAge: Duration) {
        (try JWKSet(keys: ring.publishedKeys.map { .ec($0) }), maxAge)
    }
}
