import Foundation
import Postgres

/// Rows of `identity.phone_credentials`: a verified number signs in to one account per app;
/// an account has at most one number.
enum PhoneCredentials {
    /// The account `phone` signs in to in `app`, if any.
    static func account(app: String, phone: PhoneNumber, on connection: Connection) async throws -> UUID? {
        try await connection.query(
            "SELECT account_id FROM identity.phone_credentials WHERE app = $1 AND phone = $2",
            [.text(app), .text(phone.value)]).first.map { try $0.decode(0, as: UUID.self) }
    }

    /// The account's number, if it has one.
    static func phone(of accountID: UUID, on connection: Connection) async throws -> String? {
        try await connection.query(
            "SELECT phone FROM identity.phone_credentials WHERE account_id = $1", [.uuid(accountID)])
            .first.map { try $0.decode(0, as: String.self) }
    }

    /// Adds the number to the account; false if the number or the account has one already.
    static func insert(accountID: UUID, app: String, phone: PhoneNumber, on connection: Connection) async throws -> Bool {
        try await connection.execute("""
            INSERT INTO identity.phone_credentials (account_id, app, phone) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
            """, [.uuid(accountID), .text(app), .text(phone.value)]) == 1
    }
}
