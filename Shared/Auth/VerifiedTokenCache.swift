import CryptoCore
import Synchronization

/// Access tokens already verified, so a client's next calls with the same token skip the ES256
/// signature check and the claims parsing, as API gateways cache them.
///
/// Keyed by the SHA-256 of the whole token, so a token changed in any byte is a miss and is
/// verified in full. An entry is used only while `now < exp + leeway` — never longer than the
/// verifier itself would accept the token — and is dropped as soon as the key that signed it
/// leaves the published key set (`retainKeys`). Bounded: at `capacity` entries, expired ones
/// go first, then arbitrary ones (each eviction costs one re-verification, nothing more).
final class VerifiedTokenCache: Sendable {
    struct Entry: Sendable {
        var account: AuthenticatedAccount
        /// The token's `exp`, in seconds since 1970, plus the verifier's leeway.
        var usableUntil: Int64
        var keyID: String
    }

    let capacity: Int
    private let entries = Mutex<[[UInt8]: Entry]>([:])

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
    }

    static func key(_ token: String) -> [UInt8] {
        SHA256Digest.hash(Array(token.utf8))
    }

    /// The account of a cached token still usable at `now` (seconds since 1970).
    func account(for key: [UInt8], now: Int64) -> AuthenticatedAccount? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard now < entry.usableUntil else {
                entries[key] = nil
                return nil
            }
            return entry.account
        }
    }

    func insert(_ entry: Entry, for key: [UInt8], now: Int64) {
        guard capacity > 0 else { return }
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { now < $0.value.usableUntil }
                if entries.count >= capacity {
                    // Still full of live tokens: drop a tenth (dictionary order is arbitrary).
                    for stale in entries.keys.prefix(max(capacity / 10, 1)) { entries[stale] = nil }
                }
            }
            entries[key] = entry
        }
    }

    /// Drops every entry whose signing key is not among `keyIDs` (the freshly fetched set).
    func retainKeys(_ keyIDs: Set<String>) {
        entries.withLock { entries in
            entries = entries.filter { keyIDs.contains($0.value.keyID) }
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
