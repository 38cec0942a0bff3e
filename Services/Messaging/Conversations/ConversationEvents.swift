import Contracts
import Foundation
import Postgres
import Runtime

/// Applies the events conversations follow (each exactly once, by an `EventConsumer` per
/// source): discovery's MatchCreated opens a conversation and MatchEnded closes it, its
/// SessionMatched goes to each participant's realtime stream; identity's
/// UserBlocked closes the pair's conversations at once (not waiting for discovery's
/// MatchEnded; UserUnblocked lifts the block for matches made later), AccountDeleted removes the
/// account's conversations, and ProfileUpdated keeps each member's preferred cuisines, for
/// icebreakers. Each change tells both members' realtime streams. Media's EventRevealed goes to
/// the realtime stream of each member of the Momento event (its push is planned from media's
/// event itself, with the gallery link: `PushPlanner`).
struct ConversationEvents: Sendable {
    let feed: RealtimeFeed
    /// Whether an icebreaker generator is configured: new matches are then queued for it.
    var generatorConfigured = false

    static let discoveryTypes = ["MatchCreated", "MatchEnded", "SessionMatched"]
    static let identityTypes = ["UserBlocked", "UserUnblocked", "AccountDeleted", "ProfileUpdated"]
    static let mediaTypes = ["EventRevealed"]

    func apply(_ event: Events.Event, on connection: Connection) async throws {
        switch event.type {
        case "MatchCreated":
            try await open(try Discovery.MatchCreated(serializedBytes: event.payload), app: event.app, on: connection)
        case "MatchEnded":
            let ended = try Discovery.MatchEnded(serializedBytes: event.payload)
            guard let id = UUID(uuidString: ended.matchID) else { return }
            let reason: Realtime.CloseReason = switch ended.reason {
            case .blocked: .blocked
            case .deleted: .deleted
            default: .unmatched
            }
            try await close(id, reason: reason, app: event.app, on: connection)
        case "SessionMatched":
            let matched = try Sessions.SessionMatched(serializedBytes: event.payload)
            var event = Realtime.RealtimeEvent()
            event.event = .sessionMatched(Realtime.SessionMatched(sessionID: matched.sessionID, optionID: matched.optionID,
                                                                  optionName: matched.optionLabel))
            try await feed.publish(event, type: "SessionMatched", app: matched.app,
                                   to: matched.participantIDs.compactMap(UUID.init(uuidString:)), on: connection)
        case "EventRevealed":
            let revealed = try Momento.EventRevealed(serializedBytes: event.payload)
            var event = Realtime.RealtimeEvent()
            event.event = .photosRevealed(Realtime.PhotosRevealed(eventID: revealed.eventID, eventName: revealed.title))
            try await feed.publish(event, type: "PhotosRevealed", app: revealed.app,
                                   to: Array(Set(revealed.memberIDs.compactMap(UUID.init(uuidString:)))), on: connection)
        case "UserBlocked":
            let block = try Safety.UserBlocked(serializedBytes: event.payload)
            guard let blocker = UUID(uuidString: block.blockerID), let blocked = UUID(uuidString: block.blockedID) else { return }
            _ = try await connection.execute("""
                INSERT INTO messaging.blocks (blocker_id, blocked_id) VALUES ($1, $2) ON CONFLICT DO NOTHING
                """, [.uuid(blocker), .uuid(blocked)])
            let rows = try await connection.query("""
                SELECT conversation_id FROM messaging.members WHERE account_id = $1 AND other_id = $2
                """, [.uuid(blocker), .uuid(blocked)])
            for row in rows { try await close(try row.decode(0), reason: .blocked, app: event.app, on: connection) }
        case "UserUnblocked":
            // Conversations a block closed stay closed (their match ended); a match made later
            // opens normally.
            let unblock = try Safety.UserUnblocked(serializedBytes: event.payload)
            guard let blocker = UUID(uuidString: unblock.blockerID), let blocked = UUID(uuidString: unblock.blockedID) else { return }
            _ = try await connection.execute("DELETE FROM messaging.blocks WHERE blocker_id = $1 AND blocked_id = $2",
                                             [.uuid(blocker), .uuid(blocked)])
        case "ProfileUpdated":
            let profile = try Profiles.Profile(serializedBytes: event.payload)
            guard let account = UUID(uuidString: profile.accountID) else { return }
            _ = try await connection.execute("""
                INSERT INTO messaging.member_tastes (account_id, cuisines) VALUES ($1, $2)
                ON CONFLICT (account_id) DO UPDATE SET cuisines = EXCLUDED.cuisines
                """, [.uuid(account), .textArray(profile.preferredCuisines.map { $0.lowercased() })])
        case "AccountDeleted":
            let deletion = try Identity.AccountDeleted(serializedBytes: event.payload)
            guard let account = UUID(uuidString: deletion.accountID) else { return }
            try await purge(account, app: event.app, on: connection)
        default:
            return
        }
    }

    /// Opens the match's conversation (once; closed at once when either blocked the other).
    private func open(_ match: Discovery.MatchCreated, app: String, on connection: Connection) async throws {
        guard let id = UUID(uuidString: match.matchID), match.accountIDs.count == 2,
              let a = UUID(uuidString: match.accountIDs[0]), let b = UUID(uuidString: match.accountIDs[1]), a != b else { return }
        let matchedAt = match.matchedAt?.microseconds ?? Int64(Date().timeIntervalSince1970 * 1_000_000)
        let inserted = try await connection.query("""
            INSERT INTO messaging.conversations (id, app, matched_at, super_like, last_activity_at, closed_at, close_reason)
            SELECT $1, $2, to_timestamp($3::int8 / 1000000.0), $4, to_timestamp($3::int8 / 1000000.0),
                   CASE WHEN blocked THEN now() END, CASE WHEN blocked THEN 2 ELSE 0 END
            FROM (SELECT EXISTS (SELECT 1 FROM messaging.blocks
                                 WHERE (blocker_id = $5 AND blocked_id = $6) OR (blocker_id = $6 AND blocked_id = $5)) AS blocked) b
            ON CONFLICT (id) DO NOTHING
            RETURNING closed_at IS NOT NULL
            """, [.uuid(id), .text(app), .int64(matchedAt), .bool(match.superLike), .uuid(a), .uuid(b)])
        guard let row = inserted.first else { return }
        _ = try await connection.execute("""
            INSERT INTO messaging.members (account_id, conversation_id, other_id) VALUES ($1, $3, $2), ($2, $3, $1)
            """, [.uuid(a), .uuid(b), .uuid(id)])
        let icebreakers = try await makeIcebreakers(for: id, between: a, and: b, on: connection)
        guard !(try row.decode(0, as: Bool.self)) else { return }
        for (member, other) in [(a, b), (b, a)] {
            var conversation = Messaging.Conversation()
            conversation.conversationID = id.uuidString.lowercased()
            conversation.otherAccountID = other.uuidString.lowercased()
            conversation.matchedAt = Timestamp(microseconds: matchedAt)
            conversation.lastActivityAt = conversation.matchedAt
            conversation.state = .open
            conversation.icebreakers = icebreakers
            var event = Realtime.RealtimeEvent()
            event.event = .match(Realtime.MatchOpened(conversation: conversation, superLike: match.superLike))
            try await feed.publish(event, type: "MatchOpened", app: app, to: [member], on: connection)
        }
    }

    /// Chooses the match's three starters by the cuisines both prefer and stores them (once).
    private func makeIcebreakers(for id: UUID, between a: UUID, and b: UUID,
                                 on connection: Connection) async throws -> [String] {
        let rows = try await connection.query("""
            SELECT coalesce(array_agg(DISTINCT x.cuisine), '{}') FROM (
                SELECT unnest(cuisines) AS cuisine FROM messaging.member_tastes WHERE account_id = $1
                INTERSECT
                SELECT unnest(cuisines) FROM messaging.member_tastes WHERE account_id = $2) x
            """, [.uuid(a), .uuid(b)])
        let shared = Set(try rows[0].decode(0, as: [String].self))
        let starters = IcebreakerPool.choose(sharedCuisines: shared, seed: id)
        _ = try await connection.execute("""
            INSERT INTO messaging.icebreakers (conversation_id, starters, source, generation) VALUES ($1, $2, 'pool', $3)
            ON CONFLICT (conversation_id) DO NOTHING
            """, [.uuid(id), .textArray(starters), .int16(generatorConfigured ? 1 : 0)])
        return starters
    }

    /// Closes conversation `id` unless it is closed already, telling its members (but `deleted`,
    /// an account being purged, whose stream goes).
    private func close(_ id: UUID, reason: Realtime.CloseReason, app: String, sparing deleted: UUID? = nil,
                       on connection: Connection) async throws {
        let closed = try await connection.query("""
            UPDATE messaging.conversations SET closed_at = now(), close_reason = $2
            WHERE id = $1 AND closed_at IS NULL RETURNING id
            """, [.uuid(id), .int16(Int16(reason.rawValue))])
        guard !closed.isEmpty else { return }
        let members = try await connection.query("SELECT account_id FROM messaging.members WHERE conversation_id = $1",
                                                 [.uuid(id)])
        var event = Realtime.RealtimeEvent()
        event.event = .conversationClosed(Realtime.ConversationClosed(conversationID: id.uuidString.lowercased(), reason: reason))
        let recipients: [UUID] = try members.map { try $0.decode(0) }.filter { $0 != deleted }
        try await feed.publish(event, type: "ConversationClosed", app: app, to: recipients, on: connection)
    }

    /// A deleted account leaves nothing here: its conversations go (messages with them), the
    /// other members are told, its blocks, encounters (with their award records; awards already
    /// sent are production's to delete), realtime events and push data go, and so do the events
    /// in the streams of those it talked to that name it (its matches, messages, encounter
    /// steps) with the pushes they made.
    private func purge(_ account: UUID, app: String, on connection: Connection) async throws {
        let rows = try await connection.query("SELECT conversation_id FROM messaging.members WHERE account_id = $1",
                                              [.uuid(account)])
        for row in rows { try await close(try row.decode(0), reason: .deleted, app: app, sparing: account, on: connection) }
        _ = try await connection.execute("""
            WITH others AS (
                     SELECT other_id AS id FROM messaging.members WHERE account_id = $1
                     UNION SELECT CASE WHEN starter_id = $1 THEN joiner_id ELSE starter_id END FROM messaging.encounters
                     WHERE starter_id = $1 OR joiner_id = $1),
                 gone AS (DELETE FROM messaging.realtime
                          WHERE aggregate_id IN (SELECT id::text FROM others WHERE id IS NOT NULL)
                            AND position(convert_to($2, 'UTF8') IN payload) > 0
                          RETURNING cursor)
            DELETE FROM messaging.push_jobs WHERE source IN (SELECT 'realtime:' || cursor FROM gone)
            """, [.uuid(account), .text(account.uuidString.lowercased())])
        _ = try await connection.execute("""
            WITH c AS (DELETE FROM messaging.conversations
                       WHERE id IN (SELECT conversation_id FROM messaging.members WHERE account_id = $1)),
                 b AS (DELETE FROM messaging.blocks WHERE blocker_id = $1 OR blocked_id = $1),
                 t AS (DELETE FROM messaging.member_tastes WHERE account_id = $1),
                 e AS (DELETE FROM messaging.encounters WHERE starter_id = $1 OR joiner_id = $1)
            DELETE FROM messaging.realtime WHERE aggregate_id = $2
            """, [.uuid(account), .text(account.uuidString.lowercased())])
        try await PushPreferencesStore.purge(account, on: connection)
    }
}
