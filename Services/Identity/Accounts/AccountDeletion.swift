import Contracts
import Foundation
import Postgres
import Runtime

/// Deleting an account for good: the row goes, and with it by cascade everything Identity keeps
/// for it (credentials, sessions and refresh tokens, profile and the rest: every table of user
/// data references `identity.accounts (id) ON DELETE CASCADE`), plus the throttle row of its
/// phone number and the account's past events that carry its data (`AccountCreated`: email,
/// phone, username; `ProfileUpdated`: the profile); an `AccountDeleted` event tells the other
/// services to purge theirs. Its other events name it by id only and stay in the history.
struct AccountDeletion: Sendable {
    let outbox: Outbox
    var revocations: TokenRevocations { TokenRevocations(outbox: outbox, accessTokenLifetime: accessTokenLifetime) }
    var accessTokenLifetime: Int64 = IdentitySettings.defaultAccessTokenLifetime

    /// Deletes the account in the caller's transaction and returns when, with the
    /// `SessionsRevoked` event that ends its sessions' access tokens everywhere (nil when it had
    /// none); UNAUTHENTICATED `ACCOUNT_NOT_FOUND` if it is already gone.
    func delete(accountID: UUID, app: String, on connection: Connection) async throws
        -> (deletedAt: Date, revoked: Identity.SessionsRevoked?) {
        let phone = try await PhoneCredentials.phone(of: accountID, on: connection)
        let sessions: [UUID] = try await connection.query(
            "SELECT id FROM identity.sessions WHERE account_id = $1 AND revoked_at IS NULL",
            [.uuid(accountID)]).map { try $0.decode(0) }
        let rows = try await connection.query(
            "DELETE FROM identity.accounts WHERE id = $1 AND app = $2 RETURNING now()", [.uuid(accountID), .text(app)])
        guard let row = rows.first else { throw IdentityError.accountNotFound }
        let deletedAt: Date = try row.decode(0)
        if let phone { try await PhoneCodeStore.forget(app: app, phone: phone, on: connection) }
        // A follower that has not read them yet reads AccountDeleted instead, which purges the same.
        try await connection.query("""
            DELETE FROM identity.outbox WHERE aggregate_id = $1 AND type IN ('AccountCreated', 'ProfileUpdated')
            """, [.text(accountID.uuidString.lowercased())])
        let event = Identity.AccountDeleted(accountID: accountID.uuidString.lowercased(), app: app,
                                            deletedAt: Timestamp(deletedAt))
        try await outbox.appendAtCommit(OutboxEvent(type: "AccountDeleted", app: app, aggregateID: event.accountID,
                                                    payload: event.serializedBytes()), on: connection)
        let revoked = try await revocations.sessionsRevoked(sessions, accountID: accountID, app: app,
                                                            reason: .accountDeleted, on: connection)
        return (deletedAt, revoked)
    }
}
