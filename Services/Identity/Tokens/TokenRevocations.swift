import Auth
import Contracts
import Foundation
import Postgres
import Runtime

/// The events that end access tokens before they expire, appended in the transaction of the
/// change: `SessionsRevoked` (sign-out, refresh-token reuse, account deletion) and
/// `AccountClaimsChanged` (role, tier, membership status). Every service's `RevocationList`
/// follows them (`RevocationFeed`); identity's own list is also told at once, after commit.
struct TokenRevocations: Sendable {
    let outbox: Outbox
    /// Seconds an access token lives: how long a revocation must be remembered.
    var accessTokenLifetime: Int64 = IdentitySettings.defaultAccessTokenLifetime
    /// This process's list: told of a change of claims at once, so the caller's next call with
    /// an older token is refused even before the feed brings the event. (Told before commit: if
    /// the transaction rolls back, older tokens are refused once for nothing and refreshed.)
    var list: RevocationList? = nil

    /// Why sessions were revoked, as `SessionsRevoked.reason` says it.
    enum Reason: String, Sendable {
        case signedOut = "signed_out"
        case signedOutEverywhere = "signed_out_everywhere"
        case refreshTokenReused = "refresh_token_reused"
        case accountDeleted = "account_deleted"
    }

    /// Appends `SessionsRevoked` for `sessionIDs` of the account (nothing when empty) and
    /// returns it, for the caller to apply to its own list once the transaction commits.
    @discardableResult
    func sessionsRevoked(_ sessionIDs: [UUID], accountID: UUID, app: String, reason: Reason, now: Date = Date(),
                         on connection: Connection) async throws -> Identity.SessionsRevoked? {
        guard !sessionIDs.isEmpty else { return nil }
        var event = Identity.SessionsRevoked()
        event.accountID = accountID.uuidString.lowercased()
        event.app = app
        event.sessionIDs = sessionIDs.map { $0.uuidString.lowercased() }
        event.reason = reason.rawValue
        event.revokedAt = Timestamp(milliseconds: RevocationList.milliseconds(now))
        event.validUntil = Timestamp(milliseconds: RevocationList.milliseconds(now) + accessTokenLifetime * 1000)
        try await outbox.appendAtCommit(OutboxEvent(type: "SessionsRevoked", app: app, aggregateID: event.accountID,
                                                    payload: event.serializedBytes()), on: connection)
        return event
    }

    /// Appends `AccountClaimsChanged`: tokens of the account issued before now carry an old
    /// `changed` ("role", "tier", "membership_status"). Call it with the account row locked,
    /// after the change, so no token with the new claims was issued before `now`.
    func claimsChanged(accountID: UUID, app: String, changed: String, now: Date = Date(),
                       on connection: Connection) async throws {
        var event = Identity.AccountClaimsChanged()
        event.accountID = accountID.uuidString.lowercased()
        event.app = app
        event.changed = changed
        event.notBefore = Timestamp(milliseconds: RevocationList.milliseconds(now))
        event.validUntil = Timestamp(milliseconds: RevocationList.milliseconds(now) + accessTokenLifetime * 1000)
        try await outbox.appendAtCommit(OutboxEvent(type: "AccountClaimsChanged", app: app, aggregateID: event.accountID,
                                                    payload: event.serializedBytes()), on: connection)
        list?.claimsChanged(accountID: event.accountID, notBefore: RevocationList.milliseconds(now),
                            validUntil: RevocationList.milliseconds(now) + accessTokenLifetime * 1000)
    }
}

extension RevocationList {
    /// Applies an event identity just committed, without waiting for the feed to bring it.
    func apply(_ event: Identity.SessionsRevoked) {
        let until = (event.validUntil?.seconds ?? 0) * 1000 + Int64((event.validUntil?.nanos ?? 0) / 1_000_000)
        revokeSessions(event.sessionIDs, validUntil: until)
    }
}

extension Timestamp {
    /// Milliseconds since the epoch.
    init(milliseconds: Int64) {
        self.init(microseconds: milliseconds * 1000)
    }
}
