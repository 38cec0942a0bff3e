import Contracts
import Foundation
import Postgres
import Runtime

/// Identity's AccountDeleted, followed through its WatchEvents: the account's application,
/// dates, reviews and points go. Consent records stay — the seed's legal requirement (Florida
/// two-party consent) is that a signed record is kept for ever — and so do ledger entries, which
/// are the show's money, not the person's data.
struct AccountDeletions: Sendable {
    static let source = "identity"
    static let eventTypes = ["AccountDeleted"]

    func apply(_ event: Events.Event, on connection: Connection) async throws {
        guard event.type == "AccountDeleted" else { return }
        let deletion = try Identity.AccountDeleted(serializedBytes: event.payload)
        guard let account = UUID(uuidString: deletion.accountID) else { return }
        try await connection.query("DELETE FROM production.applications WHERE account_id = $1", [.uuid(account)])
        try await connection.query("DELETE FROM production.date_reviews WHERE reviewer_id = $1", [.uuid(account)])
        try await connection.query("DELETE FROM production.dates WHERE account_ids @> ARRAY[$1::uuid]", [.uuid(account)])
        // The points ledger refuses deletes except inside an account's purge.
        try await connection.query("SELECT set_config('production.purge', 'on', true)")
        try await connection.query("DELETE FROM production.points_entries WHERE account_id = $1", [.uuid(account)])
        try await connection.query("SELECT set_config('production.purge', 'off', true)")
    }
}
