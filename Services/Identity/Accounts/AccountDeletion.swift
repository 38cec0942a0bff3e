import Contracts
import Foundation
import Postgres
import Runtime

/// Deleting an account for good: the row goes, and with it by cascade everything Identity keeps
/// for it (credentials, sessions and refresh tokens, profile and the rest: every table of user
/// data references `identity.accounts (id) ON DELETE CASCADE`), plus the throttle row of its
/// phone number; an `AccountDeleted` event tells the other services to purge theirs.
struct AccountDeletion: Sendable {
    let outbox: Outbox

    /// Deletes the account in the caller's transaction and returns when; UNAUTHENTICATED
    /// `ACCOUNT_NOT_FOUND` if it is already gone.
    func delete(accountID: UUID, app: String, on connection: Connection) async throws -> Date {
        let phone = try await PhoneCredentials.phone(of: accountID, on: connection)
        let rows = try await connection.query(
            "DELETE FROM identity.accounts WHERE id = $1 AND app = $2 RETURNING now()", [.uuid(accountID), .text(app)])
        guard let row = rows.first else { throw IdentityError.accountNotFound }
        let deletedAt: Date = try row.decode(0)
        if let phone { try await PhoneCodeStore.forget(app: app, phone: phone, on: connection) }
        let event = Identity.AccountDeleted(accountID: accountID.uuidString.lowercased(), app: app,
                                            deletedAt: Timestamp(deletedAt))
        try await outbox.append(OutboxEvent(type: "AccountDeleted", app: app, aggregateID: event.accountID,
                                            payload: event.serializedBytes()), on: connection)
        return deletedAt
    }
}
