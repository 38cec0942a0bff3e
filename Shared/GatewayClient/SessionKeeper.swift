import ContractTypes
import Foundation
import RPCCore
import Synchronization

/// The client's signed-in session: read from the token store once, written through on every
/// change, and refreshed by at most one refresh at a time.
///
/// Refresh tokens are single use, and Identity revokes the whole session when a spent one comes
/// back (`REFRESH_TOKEN_REUSED`). So however many calls find their access token refused at once,
/// exactly one `RefreshSession` runs; the others wait for it and then use its tokens. The refresh
/// runs in a task of its own, so a caller that gives up cannot lose the rotated tokens midway.
final class SessionKeeper: Sendable {
    /// Sends `RefreshSession` with the given refresh token.
    typealias Refresh = @Sendable (_ refreshToken: String) async throws -> Identity.AuthSession

    private struct State {
        var loaded = false
        var session: StoredSession?
        /// The refresh under way, if any; it belongs to `generation`.
        var refresh: Task<StoredSession, any Error>?
        /// Bumped by every sign-in and sign-out, so that a refresh of a replaced session cannot
        /// overwrite its successor.
        var generation = 0
    }

    private let store: any TokenStore
    private let refreshMargin: Duration
    private let sendRefresh: Refresh
    private let state = Mutex(State())

    init(store: any TokenStore, refreshMargin: Duration, refresh: @escaping Refresh) {
        self.store = store
        self.refreshMargin = refreshMargin
        self.sendRefresh = refresh
    }

    /// The current session; nil when signed out.
    func current() throws -> StoredSession? {
        try state.withLock { state in try loadIfNeeded(&state) }
    }

    /// An access token to send now: the stored one, or a fresh one when it expires within the
    /// refresh margin. Throws `isSignedOut` when there is no session.
    func accessToken() async throws -> String {
        guard let session = try current() else { throw RPCError.signedOut(cause: "NO_SESSION") }
        let left = session.accessTokenExpiresAt.timeIntervalSinceNow
        if left > refreshMargin.seconds { return session.accessToken }
        do {
            return try await refreshed(after: session.accessToken).accessToken
        } catch let error as RPCError where !error.isSignedOut && session.accessTokenExpiresAt > Date() {
            // Refreshing early failed (say, UNAVAILABLE) but the token is still valid: use it.
            return session.accessToken
        }
    }

    /// The session after `rejectedAccessToken` was refused: refreshes unless another caller
    /// already did (then its tokens are returned) or is doing so (then this waits for it).
    /// A refresh refused with UNAUTHENTICATED clears the session and throws `isSignedOut`.
    func refreshed(after rejectedAccessToken: String) async throws -> StoredSession {
        enum Next {
            case use(StoredSession)
            case wait(Task<StoredSession, any Error>)
        }
        let next = try state.withLock { state throws -> Next in
            guard let session = try loadIfNeeded(&state) else { throw RPCError.signedOut(cause: "NO_SESSION") }
            if let running = state.refresh { return .wait(running) }
            if session.accessToken != rejectedAccessToken { return .use(session) }
            let generation = state.generation
            let task = Task { try await self.refresh(session, generation: generation) }
            state.refresh = task
            return .wait(task)
        }
        switch next {
        case .use(let session): return session
        case .wait(let task): return try await task.value
        }
    }

    /// Saves the session a sign-in returned, replacing any other.
    @discardableResult
    func signedIn(_ response: Identity.AuthSession) throws -> StoredSession {
        guard let session = StoredSession(response) else {
            throw RPCError(code: .internal, message: "the sign-in response lacks its session")
        }
        try state.withLock { state in
            state.generation += 1
            state.refresh = nil
            state.loaded = true
            state.session = session
            try store.save(session)
        }
        return session
    }

    /// Forgets the session here and in the store.
    func signedOut() throws {
        try state.withLock { state in
            state.generation += 1
            state.refresh = nil
            state.loaded = true
            state.session = nil
            try store.clear()
        }
    }

    // MARK: Private

    private func loadIfNeeded(_ state: inout State) throws -> StoredSession? {
        if !state.loaded {
            state.session = try store.load()
            state.loaded = true
        }
        return state.session
    }

    /// One `RefreshSession` for `session`; commits the result unless a sign-in or sign-out came
    /// first. The store is written under the lock so that it always ends with what memory holds.
    private func refresh(_ session: StoredSession, generation: Int) async throws -> StoredSession {
        let response: Identity.AuthSession
        do {
            response = try await sendRefresh(session.refreshToken)
        } catch let error as RPCError where error.code == .unauthenticated {
            state.withLock { state in
                guard state.generation == generation else { return }
                state.generation += 1
                state.refresh = nil
                state.session = nil
                // A store that cannot forget leaves a dead session for the next launch, which
                // is refused the same way; what the caller must hear is "signed out".
                try? store.clear()
            }
            throw RPCError.signedOut(cause: error.reason ?? "UNAUTHENTICATED")
        } catch {
            state.withLock { state in
                if state.generation == generation { state.refresh = nil }
            }
            throw error
        }
        return try state.withLock { state in
            guard state.generation == generation else {
                guard let current = state.session else { throw RPCError.signedOut(cause: "SIGNED_OUT_LOCALLY") }
                return current
            }
            state.refresh = nil
            guard let refreshed = StoredSession(response) else {
                throw RPCError(code: .internal, message: "the refresh response lacks its session")
            }
            state.session = refreshed
            try store.save(refreshed)
            return refreshed
        }
    }
}
