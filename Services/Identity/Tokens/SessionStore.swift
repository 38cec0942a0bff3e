import Contracts
import Foundation
import Postgres
import Runtime

/// Sessions (refresh token families) and their refresh tokens.
///
/// Each refresh spends the presented token and issues the next generation. A spent token
/// presented again means it was copied: the whole session is revoked, so whichever party holds
/// the newer token must sign in again too (RFC 9700 §4.14.2). Two concurrent refreshes with one
/// token are indistinguishable from that and are treated the same way: the row lock makes one
/// win, and the loser's attempt revokes the session.
struct SessionStore: Sendable {
    typealias SessionsRevokedEvent = Identity.SessionsRevoked

    let refreshTokenLifetime: Int64
    /// Appends `SessionsRevoked` whenever sessions end early.
    let revocations: TokenRevocations

    /// A new session for `account` with its first refresh token, written with the transaction's
    /// COMMIT (`Connection.executeAtCommit`): a session starts last in every sign-in, nothing in
    /// the transaction reads it, and the caller learns everything it returns without a round
    /// trip. The expiry is this process's clock plus the lifetime, in whole seconds.
    func create(account: Identity.Account, deviceName: String, on connection: Connection) async throws
        -> (sessionID: UUID, refreshToken: String, expiresAt: Date) {
        let sessionID = UUID.random()
        let token = RefreshToken.make()
        let expiresAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + Double(refreshTokenLifetime)).rounded(.down))
        try await connection.executeAtCommit(PostgresStatement("""
            INSERT INTO identity.sessions (id, account_id, app, device_name, expires_at) VALUES ($1, $2, $3, $4, $5)
            """, [.uuid(sessionID), .uuid(UUID(uuidString: account.id)), .text(account.app),
                  .text(String(deviceName.prefix(100))), .timestamptz(expiresAt)]))
        try await connection.executeAtCommit(PostgresStatement("""
            INSERT INTO identity.refresh_tokens (token_hash, session_id, generation, expires_at) VALUES ($1, $2, 1, $3)
            """, [.bytea(RefreshToken.hash(token)), .uuid(sessionID), .timestamptz(expiresAt)]))
        return (sessionID, token, expiresAt)
    }

    /// What presenting a refresh token led to.
    enum Rotation {
        /// `issuedAt`: when to say the access token was issued (see `rotate`).
        case rotated(account: Identity.Account, sessionID: UUID, refreshToken: String, expiresAt: Date, issuedAt: Date)
        /// The token was spent before; the session is now revoked (commit, then refuse).
        case reused(SessionsRevokedEvent?)
        case refused(IdentityError)
    }

    /// Spends `token` and issues its successor, in the caller's transaction.
    func rotate(_ token: String, on connection: Connection) async throws -> Rotation {
        let hash = RefreshToken.hash(token)
        let spent = try await connection.query("""
            UPDATE identity.refresh_tokens SET spent_at = now()
            WHERE token_hash = $1 AND spent_at IS NULL AND expires_at > now()
            RETURNING session_id, generation
            """, [.bytea(hash)])
        guard let row = spent.first else {
            let known = try await connection.query(
                "SELECT session_id, spent_at IS NOT NULL FROM identity.refresh_tokens WHERE token_hash = $1", [.bytea(hash)])
            guard let token = known.first, try token.decode(1, as: Bool.self) else { return .refused(.invalidRefreshToken) }
            let revoked = try await connection.query("""
                UPDATE identity.sessions SET revoked_at = now(), revoked_reason = 'refresh_token_reused'
                WHERE id = $1 AND revoked_at IS NULL
                RETURNING id, account_id, app
                """, [.uuid(try token.decode(0, as: UUID.self))])
            guard let session = revoked.first else { return .reused(nil) }
            // The thief may hold a live access token of this session: end it everywhere now.
            return .reused(try await revocations.sessionsRevoked(
                [try session.decode(0)], accountID: try session.decode(1), app: try session.decode(2),
                reason: .refreshTokenReused, on: connection))
        }
        let sessionID: UUID = try row.decode(0)
        let generation: Int32 = try row.decode(1)
        let sessions = try await connection.query("""
            UPDATE identity.sessions SET last_used_at = now(), expires_at = now() + $2::bigint * interval '1 second'
            WHERE id = $1 AND revoked_at IS NULL
            RETURNING account_id, app, expires_at
            """, [.uuid(sessionID), .int64(refreshTokenLifetime)])
        guard let session = sessions.first else { return .refused(.sessionRevoked) }
        let expiresAt: Date = try session.decode(2)
        // A change of role, tier or membership holds the row FOR UPDATE until it commits and
        // takes its `not_before` under that lock. Reading the claims under FOR SHARE, with the
        // issue time taken once the lock is held, orders the two: either the change committed
        // first (new claims, issued after `not_before`) or it waits for this transaction (old
        // claims, issued before its `not_before`: stale at once).
        _ = try await connection.query("SELECT 1 FROM identity.accounts WHERE id = $1 FOR SHARE",
                                       [.uuid(try session.decode(0, as: UUID.self))])
        let issuedAt = Date()
        guard let account = try await AccountStore.find(id: try session.decode(0), app: try session.decode(1),
                                                        on: connection) else {
            return .refused(.accountNotFound)
        }
        let next = try await insertToken(session: sessionID, generation: generation + 1, expiresAt: expiresAt, on: connection)
        return .rotated(account: account, sessionID: sessionID, refreshToken: next, expiresAt: expiresAt, issuedAt: issuedAt)
    }

    /// Revokes one session of `accountID`, or all of them, with their `SessionsRevoked` event;
    /// returns the sessions that were active and the event (nil when there were none).
    func revoke(accountID: UUID, app: String, sessionID: UUID?, on connection: Connection) async throws
        -> (count: Int, event: SessionsRevokedEvent?) {
        let rows: PostgresRows
        if let sessionID {
            rows = try await connection.query("""
                UPDATE identity.sessions SET revoked_at = now(), revoked_reason = 'signed_out'
                WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
                RETURNING id
                """, [.uuid(sessionID), .uuid(accountID)])
        } else {
            rows = try await connection.query("""
                UPDATE identity.sessions SET revoked_at = now(), revoked_reason = 'signed_out_everywhere'
                WHERE account_id = $1 AND revoked_at IS NULL
                RETURNING id
                """, [.uuid(accountID)])
        }
        let ids: [UUID] = try rows.map { try $0.decode(0) }
        let event = try await revocations.sessionsRevoked(
            ids, accountID: accountID, app: app, reason: sessionID == nil ? .signedOutEverywhere : .signedOut,
            on: connection)
        return (ids.count, event)
    }

    /// The account's active sessions, newest first.
    func list(accountID: UUID, currentSessionID: String, on connection: Connection) async throws -> [Identity.Session] {
        try await connection.query("""
            SELECT id, device_name, created_at, last_used_at, expires_at FROM identity.sessions
            WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > now()
            ORDER BY created_at DESC, id
            """, [.uuid(accountID)]).map { row in
            var session = Identity.Session()
            session.id = (try row.decode(0, as: UUID.self)).uuidString.lowercased()
            session.deviceName = try row.decode(1)
            session.createdAt = Timestamp(try row.decode(2, as: Date.self))
            session.lastUsedAt = Timestamp(try row.decode(3, as: Date.self))
            session.expiresAt = Timestamp(try row.decode(4, as: Date.self))
            session.current = session.id == currentSessionID.lowercased()
            return session
        }
    }

    private func insertToken(session: UUID, generation: Int32, expiresAt: Date, on connection: Connection) async throws -> String {
        let token = RefreshToken.make()
        _ = try await connection.execute("""
            INSERT INTO identity.refresh_tokens (token_hash, session_id, generation, expires_at) VALUES ($1, $2, $3, $4)
            """, [.bytea(RefreshToken.hash(token)), .uuid(session), .int32(generation), .timestamptz(expiresAt)])
        return token
    }
}
