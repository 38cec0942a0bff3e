package import Foundation
import Synchronization

/// Access tokens refused before they expire: sessions that were revoked (sign-out, refresh
/// token reuse, account deletion) and accounts whose claims changed (role, tier, membership),
/// whose tokens issued before the change are stale.
///
/// Memory is bounded by the tokens that could still be valid: each entry carries the instant
/// after which no token it refuses can pass the verifier anyway (its `validUntil`, plus the
/// verifier's leeway), and is dropped after it. Expired entries are swept at most once per
/// `sweepInterval`, on the next write or by `sweep(now:)`.
///
/// Fed by identity's `SessionsRevoked` and `AccountClaimsChanged` events (`RevocationFeed`, and
/// identity itself as it revokes); consulted by `AuthInterceptor` after a token verifies.
package final class RevocationList: Sendable {
    /// What the list says about a verified token.
    package enum Verdict: Sendable, Hashable {
        case valid
        /// The token's session was revoked.
        case revoked
        /// The token was issued before its account's claims last changed.
        case stale
    }

    private struct Entry {
        /// Session: unused. Account: tokens issued before this (Unix ms) are stale.
        var notBefore: Int64
        /// Forgotten after this (Unix ms).
        var forgetAfter: Int64
    }

    private struct State {
        var sessions: [String: Entry] = [:]
        var accounts: [String: Entry] = [:]
        var lastSweep: Int64 = 0
    }

    /// Clock skew the verifier allows on `exp`, in milliseconds: entries outlive `validUntil` by it.
    package let leewayMilliseconds: Int64
    /// Least time between two sweeps of expired entries, in milliseconds.
    package let sweepIntervalMilliseconds: Int64
    private let state = Mutex(State())

    /// `leewaySeconds` must be at least the verifier's (`AccessTokenVerifier.Configuration.leewaySeconds`).
    package init(leewaySeconds: Int64 = 30, sweepInterval: Duration = .seconds(10)) {
        self.leewayMilliseconds = leewaySeconds * 1000
        self.sweepIntervalMilliseconds = sweepInterval.components.seconds * 1000
            + sweepInterval.components.attoseconds / 1_000_000_000_000_000
    }

    /// Refuses every token of `sessionIDs` until `validUntil` (Unix ms) has passed.
    package func revokeSessions(_ sessionIDs: some Sequence<String>, validUntil: Int64, now: Date = Date()) {
        let now = Self.milliseconds(now)
        let forgetAfter = validUntil + leewayMilliseconds
        guard forgetAfter > now else { return }
        state.withLock { state in
            for id in sessionIDs {
                let key = id.lowercased()
                let kept = state.sessions[key]?.forgetAfter ?? .min
                state.sessions[key] = Entry(notBefore: 0, forgetAfter: max(kept, forgetAfter))
            }
            sweepIfDue(&state, now: now)
        }
    }

    /// Refuses tokens of `accountID` issued before `notBefore` (Unix ms); such tokens are all
    /// expired after `validUntil` (Unix ms).
    package func claimsChanged(accountID: String, notBefore: Int64, validUntil: Int64, now: Date = Date()) {
        let now = Self.milliseconds(now)
        let forgetAfter = validUntil + leewayMilliseconds
        guard forgetAfter > now else { return }
        state.withLock { state in
            let key = accountID.lowercased()
            var entry = state.accounts[key] ?? Entry(notBefore: .min, forgetAfter: .min)
            entry.notBefore = max(entry.notBefore, notBefore)
            entry.forgetAfter = max(entry.forgetAfter, forgetAfter)
            state.accounts[key] = entry
            sweepIfDue(&state, now: now)
        }
    }

    /// Whether the verified `account`'s token may still be used.
    package func check(_ account: AuthenticatedAccount) -> Verdict {
        state.withLock { state in
            if !account.sessionID.isEmpty, state.sessions[account.sessionID.lowercased()] != nil { return .revoked }
            if let entry = state.accounts[account.accountID.lowercased()],
               account.issuedAtMilliseconds < entry.notBefore {
                return .stale
            }
            return .valid
        }
    }

    /// Drops every entry whose tokens have all expired.
    package func sweep(now: Date = Date()) {
        let now = Self.milliseconds(now)
        state.withLock { state in sweep(&state, now: now) }
    }

    /// Entries held (sessions plus accounts), for metrics and tests.
    package var count: Int { state.withLock { $0.sessions.count + $0.accounts.count } }

    /// Unix milliseconds of `date`.
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    private func sweepIfDue(_ state: inout State, now: Int64) {
        guard now - state.lastSweep >= sweepIntervalMilliseconds else { return }
        sweep(&state, now: now)
    }

    private func sweep(_ state: inout State, now: Int64) {
        state.lastSweep = now
        state.sessions = state.sessions.filter { $0.value.forgetAfter > now }
        state.accounts = state.accounts.filter { $0.value.forgetAfter > now }
    }
}
