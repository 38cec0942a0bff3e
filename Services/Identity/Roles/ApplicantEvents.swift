import Auth
import Contracts
import Foundation
import Postgres
import Runtime

/// Production's `ApplicationSubmitted`, followed through its WatchEvents: the member becomes
/// their app's applicant (the path `BecomeApplicant` takes), so their next token carries the
/// role. Only the app's default role moves; hosts, admins and applicants keep theirs, and an
/// account deleted since is skipped.
struct ApplicantEvents: Sendable {
    static let source = "production"
    static let types = ["ApplicationSubmitted"]
    /// Where production answers (host:port); unset, identity does not follow it.
    static let addressVariable = "RV_PRODUCTION_ADDRESS"

    let apps: AppPolicies
    let roles: RoleStore

    func apply(_ event: Events.Event, on connection: Connection) async throws {
        guard event.type == "ApplicationSubmitted" else { return }
        let submitted = try Production.ApplicationSubmitted(serializedBytes: event.payload)
        guard let id = UUID(uuidString: submitted.accountID), let policy = try? apps.policy(for: submitted.app),
              let applicant = policy.applicantRole,
              let current = try await roles.lockedRole(of: id, app: submitted.app, on: connection),
              current == policy.defaultRole else { return }
        _ = try await roles.change(id, app: submitted.app, from: current, to: applicant, changedBy: id, on: connection)
    }
}
