import Contracts
import Foundation
import Postgres
import Runtime

/// Discovery's copy of what ranking needs, kept from identity's events (applied exactly once
/// by an `EventConsumer`, in identity's commit order). A fresh instance backfills by following
/// identity's stream from its beginning: the consumer's cursor starts at 0.
struct ProfileProjection: Sendable {
    let matches: MatchStore

    /// The identity events discovery follows.
    static let eventTypes = ["ProfileUpdated", "TierChanged", "UserBlocked", "UserUnblocked", "UserReported", "AccountDeleted",
                             "ReferralUsed", "MembershipApproved", "MembershipRejected"]

    func apply(_ event: Events.Event, on connection: Connection) async throws {
        switch event.type {
        case "ProfileUpdated":
            try await upsert(try Profiles.Profile(serializedBytes: event.payload), on: connection)
        case "TierChanged":
            let change = try Membership.TierChanged(serializedBytes: event.payload)
            guard let account = UUID(uuidString: change.accountID) else { return }
            _ = try await connection.execute("""
                INSERT INTO discovery.profiles (account_id, app, tier) VALUES ($1, $2, $3)
                ON CONFLICT (account_id) DO UPDATE SET tier = EXCLUDED.tier
                """, [.uuid(account), .text(event.app), .text(change.tier)])
        case "UserBlocked":
            let block = try Safety.UserBlocked(serializedBytes: event.payload)
            guard let blocker = UUID(uuidString: block.blockerID), let blocked = UUID(uuidString: block.blockedID) else { return }
            _ = try await connection.execute("""
                INSERT INTO discovery.blocks (blocker_id, blocked_id) VALUES ($1, $2) ON CONFLICT DO NOTHING
                """, [.uuid(blocker), .uuid(blocked)])
            try await matches.end(between: blocker, and: blocked, by: blocker, reason: .blocked, app: event.app, on: connection)
        case "UserUnblocked":
            let unblock = try Safety.UserUnblocked(serializedBytes: event.payload)
            guard let blocker = UUID(uuidString: unblock.blockerID), let blocked = UUID(uuidString: unblock.blockedID) else { return }
            _ = try await connection.execute("DELETE FROM discovery.blocks WHERE blocker_id = $1 AND blocked_id = $2",
                                             [.uuid(blocker), .uuid(blocked)])
        case "UserReported":
            let report = try Safety.UserReported(serializedBytes: event.payload)
            guard let reporter = UUID(uuidString: report.reporterID), let reported = UUID(uuidString: report.reportedID) else { return }
            _ = try await connection.execute("""
                INSERT INTO discovery.reports (reporter_id, reported_id) VALUES ($1, $2) ON CONFLICT DO NOTHING
                """, [.uuid(reporter), .uuid(reported)])
        case "MembershipApproved", "MembershipRejected":
            // Admission decides whether anyone sees the member (ÉLITE's committee, a referral);
            // ProfileUpdated carries it too, for accounts that were never decided on.
            let accountID = event.type == "MembershipApproved"
                ? try Membership.MembershipApproved(serializedBytes: event.payload).accountID
                : try Membership.MembershipRejected(serializedBytes: event.payload).accountID
            guard let account = UUID(uuidString: accountID) else { return }
            _ = try await connection.execute("""
                INSERT INTO discovery.profiles (account_id, app, admitted) VALUES ($1, $2, $3)
                ON CONFLICT (account_id) DO UPDATE SET admitted = EXCLUDED.admitted
                """, [.uuid(account), .text(event.app), .bool(event.type == "MembershipApproved")])
        case "ReferralUsed":
            // A referral connects the two both ways (one row per direction keeps the mutual
            // count a single join).
            let referral = try Membership.ReferralUsed(serializedBytes: event.payload)
            guard let referrer = UUID(uuidString: referral.referrerAccountID),
                  let redeemer = UUID(uuidString: referral.redeemerAccountID), referrer != redeemer else { return }
            _ = try await ConnectionStore.connect(referrer, with: [redeemer], source: .referral, on: connection)
        case "AccountDeleted":
            let deletion = try Identity.AccountDeleted(serializedBytes: event.payload)
            guard let account = UUID(uuidString: deletion.accountID) else { return }
            try await purge(account, app: event.app, on: connection)
        default:
            return
        }
    }

    /// ProfileUpdated carries the owner's full view: every field is replaced (admission too), the
    /// tier kept.
    private func upsert(_ profile: Profiles.Profile, on connection: Connection) async throws {
        guard let account = UUID(uuidString: profile.accountID) else { return }
        let birth = profile.birthDate.flatMap { date -> String? in
            guard date.year > 0, (1...12).contains(date.month), (1...31).contains(date.day) else { return nil }
            return String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
        }
        let location = profile.location
        _ = try await connection.execute("""
            INSERT INTO discovery.profiles (account_id, app, active, public_name, gender, birth_date, bio, title, tags,
                                            interests, cuisines, neighborhood, location, photo_ids, verified,
                                            last_active_at, updated_at, admitted)
            VALUES ($1, $2, $3, $4, $5, $6::date, $7, $8, $9, $10, $11, $12,
                    CASE WHEN $13::float8 IS NULL THEN NULL
                         ELSE ST_SetSRID(ST_MakePoint($14::float8, $13::float8), 4326)::geography END,
                    $15, $16, 'epoch'::timestamptz + $17::int8 * interval '1 microsecond', now(), $18)
            ON CONFLICT (account_id) DO UPDATE SET
                active = EXCLUDED.active, public_name = EXCLUDED.public_name, gender = EXCLUDED.gender,
                birth_date = EXCLUDED.birth_date, bio = EXCLUDED.bio, title = EXCLUDED.title, tags = EXCLUDED.tags,
                interests = EXCLUDED.interests, cuisines = EXCLUDED.cuisines, neighborhood = EXCLUDED.neighborhood,
                location = EXCLUDED.location, photo_ids = EXCLUDED.photo_ids, verified = EXCLUDED.verified,
                last_active_at = EXCLUDED.last_active_at, updated_at = now(), admitted = EXCLUDED.admitted
            """, [.uuid(account), .text(profile.app), .bool(profile.active), .text(profile.publicName),
                  .int32(profile.gender.rawValue), .text(birth), .text(profile.bio), .text(profile.title),
                  .textArray(profile.tags), .textArray(profile.interests), .textArray(profile.preferredCuisines),
                  .text(profile.neighborhood), .double(location?.latitude), .double(location?.longitude),
                  .textArray(profile.photoIDs), .bool(profile.verified),
                  .int64(profile.lastActiveAt?.microseconds), .bool(!profile.notAdmitted)])
    }

    /// A deleted account leaves nothing behind: its matches end (MatchEnded, for messaging),
    /// then its profile, swipes (both ways), blocks, reports, matches, counters, connections, its
    /// Instagram link, its part in group sessions and its feed version go. A group session it
    /// created passes to the participant who joined first after it (who may then close it), or
    /// goes when nobody else joined.
    private func purge(_ account: UUID, app: String, on connection: Connection) async throws {
        try await matches.endAll(of: account, app: app, on: connection)
        _ = try await connection.execute("""
            WITH created AS (
                     SELECT id FROM discovery.group_sessions
                     WHERE id IN (SELECT session_id FROM discovery.session_participants WHERE account_id = $1) AND creator_id = $1),
                 heirs AS (
                     SELECT DISTINCT ON (session_id) session_id, account_id FROM discovery.session_participants
                     WHERE session_id IN (SELECT id FROM created) AND account_id <> $1
                     ORDER BY session_id, joined_at, account_id),
                 handed AS (UPDATE discovery.group_sessions s SET creator_id = h.account_id FROM heirs h WHERE s.id = h.session_id)
            DELETE FROM discovery.group_sessions WHERE id IN (SELECT id FROM created) AND id NOT IN (SELECT session_id FROM heirs)
            """, [.uuid(account)])
        _ = try await connection.execute("""
            WITH p AS (DELETE FROM discovery.profiles WHERE account_id = $1),
                 s AS (DELETE FROM discovery.swipes WHERE swiper_id = $1 OR target_id = $1),
                 b AS (DELETE FROM discovery.blocks WHERE blocker_id = $1 OR blocked_id = $1),
                 r AS (DELETE FROM discovery.reports WHERE reporter_id = $1 OR reported_id = $1),
                 u AS (DELETE FROM discovery.daily_usage WHERE account_id = $1),
                 l AS (DELETE FROM discovery.session_likes WHERE account_id = $1),
                 sp AS (DELETE FROM discovery.session_participants WHERE account_id = $1),
                 c AS (DELETE FROM discovery.connections WHERE account_id = $1 OR other_id = $1),
                 il AS (DELETE FROM discovery.instagram_links WHERE account_id = $1),
                 ir AS (DELETE FROM discovery.instagram_related WHERE account_id = $1)
            DELETE FROM discovery.matches WHERE account_low = $1 OR account_high = $1
            """, [.uuid(account)])
        // Its own statement: deleting the blocks and reports above bumps both sides' versions.
        _ = try await connection.execute("DELETE FROM discovery.feed_member_versions WHERE account_id = $1", [.uuid(account)])
    }
}
