import Contracts
import Foundation
import Postgres

/// What media keeps of identity's accounts: whether onboarding is complete (the photo minimum
/// applies from then on), from ProfileUpdated.
enum AccountProjection {
    static let eventTypes = ["ProfileUpdated"]

    static func apply(_ event: Events.Event, on connection: Connection) async throws {
        guard event.type == "ProfileUpdated" else { return }
        let profile = try Profiles.Profile(serializedBytes: event.payload)
        guard let account = UUID(uuidString: profile.accountID) else { return }
        _ = try await connection.execute("""
            INSERT INTO media.accounts (account_id, app, onboarding_complete) VALUES ($1, $2, $3)
            ON CONFLICT (account_id) DO UPDATE SET onboarding_complete = EXCLUDED.onboarding_complete
            """, [.uuid(account), .text(event.app), .bool(profile.onboardingComplete)])
    }
}
