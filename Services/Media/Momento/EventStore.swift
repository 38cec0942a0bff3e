import Contracts
import Foundation
import Postgres
import Runtime

/// Rows of `media.events`, `event_members` and `event_photos`. A member's row lock
/// (`lockMember`) serializes that member's photo adds, which is what makes the per-member limit
/// exact; counters change in the same statements as the rows they count.
struct EventStore: Sendable {
    let outbox: Outbox

    struct Membership: Sendable {
        var role: Momento.MemberRole
        var photoCount: Int32
    }

    /// Inserts the event with `creator` as its first member; a fresh code on the rare clash.
    func create(app: String, creator: UUID, request: Momento.CreateEventRequest, maxPhotos: Int32,
                on connection: Connection) async throws -> EventRecord {
        let id = UUID.random()
        for _ in 0..<8 {
            let rows = try await connection.query("""
                INSERT INTO media.events AS e (id, app, creator_id, title, join_code, release_at, is_private,
                    max_photos_per_member, location_name, latitude, longitude, description)
                VALUES ($1, $2, $3, $4, $5, to_timestamp($6::float8 / 1000000), $7, $8, $9, $10, $11, $12)
                ON CONFLICT (join_code) DO NOTHING RETURNING \(EventRecord.columns)
                """, [.uuid(id), .text(app), .uuid(creator), .text(request.title), .text(JoinCode.make()),
                      .int64(request.releaseAt?.microseconds ?? 0), .bool(request.isPrivate), .int32(maxPhotos),
                      .text(request.location?.name ?? ""), .double(request.location?.latitude ?? 0),
                      .double(request.location?.longitude ?? 0), .text(request.description)])
            guard let row = rows.first else { continue }
            _ = try await connection.execute("""
                INSERT INTO media.event_members (event_id, account_id, role) VALUES ($1, $2, $3)
                """, [.uuid(id), .uuid(creator), .int16(Int16(Momento.MemberRole.creator.rawValue))])
            return try EventRecord(row: row)
        }
        throw PostgresError(code: .protocolViolation, context: "no free join code after 8 attempts")
    }

    /// Appends EventCountersChanged with the event's counters as this transaction leaves them.
    func countersChanged(_ event: UUID, on connection: Connection) async throws {
        guard let row = try await connection.query("SELECT app, member_count, photo_count FROM media.events WHERE id = $1",
                                                   [.uuid(event)]).first else { return }
        let changed = Momento.EventCountersChanged(eventID: event.uuidString.lowercased(), memberCount: try row.decode(1),
                                                   photoCount: try row.decode(2))
        try await outbox.appendAtCommit(OutboxEvent(type: "EventCountersChanged", app: try row.decode(0), aggregateID: changed.eventID,
                                                    payload: changed.serializedBytes()), on: connection)
    }

    func event(_ id: UUID, app: String, on connection: Connection) async throws -> EventRecord? {
        try await connection.query("SELECT \(EventRecord.columns) FROM media.events e WHERE e.id = $1 AND e.app = $2",
                                   [.uuid(id), .text(app)]).first.map(EventRecord.init(row:))
    }

    /// The event with code `code`, counting a view of it.
    func preview(code: String, on connection: Connection) async throws -> EventRecord? {
        try await connection.query("""
            UPDATE media.events e SET code_views = code_views + 1 WHERE join_code = $1 RETURNING \(EventRecord.columns)
            """, [.text(code)]).first.map(EventRecord.init(row:))
    }

    func membership(of account: UUID, in event: UUID, on connection: Connection, lock: Bool = false) async throws -> Membership? {
        try await connection.query("""
            SELECT role, photo_count FROM media.event_members WHERE event_id = $1 AND account_id = $2\(lock ? " FOR UPDATE" : "")
            """, [.uuid(event), .uuid(account)]).first.map {
            Membership(role: Momento.MemberRole(rawValue: Int32(try $0.decode(0, as: Int16.self))), photoCount: try $0.decode(1))
        }
    }

    /// The event of `code` in `app`, made to include `account` (a no-op for a member): the join
    /// and member counters move only for a new member.
    func join(code: String, app: String, account: UUID, invitedBy: UUID?, on connection: Connection) async throws -> EventRecord? {
        guard let event = try await connection.query("""
            SELECT \(EventRecord.columns) FROM media.events e WHERE e.join_code = $1 AND e.app = $2
            """, [.text(code), .text(app)]).first.map(EventRecord.init(row:)) else { return nil }
        if let invitedBy, invitedBy != account, try await membership(of: invitedBy, in: event.id, on: connection) == nil {
            throw MediaError.invalidInviter
        }
        let inserted = try await connection.execute("""
            INSERT INTO media.event_members (event_id, account_id, role, invited_by) VALUES ($1, $2, $3, $4)
            ON CONFLICT DO NOTHING
            """, [.uuid(event.id), .uuid(account), .int16(Int16(Momento.MemberRole.member.rawValue)),
                  .uuid(invitedBy == account ? nil : invitedBy)])
        guard inserted == 1 else { return event }
        let joined = try await connection.query("""
            UPDATE media.events e SET member_count = member_count + 1, code_joins = code_joins + 1 WHERE id = $1
            RETURNING \(EventRecord.columns)
            """, [.uuid(event.id)]).first.map(EventRecord.init(row:))
        try await countersChanged(event.id, on: connection)
        return joined
    }

    /// Adds `blob` as `account`'s photo; the caller holds the member's row lock and has checked the limit.
    func addPhoto(event: UUID, account: UUID, blob: UUID, on connection: Connection) async throws -> (id: UUID, addedAt: Int64)? {
        let id = UUID.random()
        guard let row = try await connection.query("""
            INSERT INTO media.event_photos (id, event_id, account_id, blob_id) VALUES ($1, $2, $3, $4)
            ON CONFLICT (event_id, blob_id) DO NOTHING RETURNING \(UnixMicroseconds.sql("added_at"))
            """, [.uuid(id), .uuid(event), .uuid(account), .uuid(blob)]).first else { return nil }
        _ = try await connection.execute("""
            UPDATE media.event_members SET photo_count = photo_count + 1 WHERE event_id = $1 AND account_id = $2
            """, [.uuid(event), .uuid(account)])
        _ = try await connection.execute("UPDATE media.events SET photo_count = photo_count + 1 WHERE id = $1", [.uuid(event)])
        try await countersChanged(event, on: connection)
        return (id, try row.decode(0))
    }

    struct PhotoRow: Sendable {
        var id: UUID
        var accountID: UUID
        var blob: BlobRecord
        var addedAt: Int64
    }

    static let photoColumns = "p.id, p.account_id, \(UnixMicroseconds.sql("p.added_at")), "
        + "b.id, b.app, b.owner_id, b.kind, b.content_type, b.size, b.sha256, b.width, b.height, "
        + UnixMicroseconds.sql("b.created_at")

    /// Photos of `event` in order after `cursor`; only `account`'s own when `onlyOf` is set.
    func photos(of event: UUID, onlyOf account: UUID?, after cursor: PageCursor?, limit: Int,
                on connection: Connection) async throws -> [PhotoRow] {
        try await connection.query("""
            SELECT \(Self.photoColumns) FROM media.event_photos p JOIN media.blobs b ON b.id = p.blob_id
            WHERE p.event_id = $1 AND ($2::uuid IS NULL OR p.account_id = $2)
              AND ($3::int8 IS NULL OR (p.added_at, p.id) > (to_timestamp($3::float8 / 1000000), $4::uuid))
            ORDER BY p.added_at, p.id LIMIT $5
            """, [.uuid(event), .uuid(account), .int64(cursor?.microseconds), .uuid(cursor?.id), .int(limit)]).map { row in
            PhotoRow(id: try row.decode(0), accountID: try row.decode(1), blob: try BlobRecord(row: row, offset: 3),
                     addedAt: try row.decode(2))
        }
    }

    /// Removes photo `id` of `event` (its owner's and the event's counters with it); the
    /// photo's owner when it existed.
    func deletePhoto(_ id: UUID, of event: UUID, by account: UUID?, on connection: Connection) async throws -> Bool {
        guard let owner: UUID = try await connection.query("""
            DELETE FROM media.event_photos WHERE id = $1 AND event_id = $2 AND ($3::uuid IS NULL OR account_id = $3)
            RETURNING account_id
            """, [.uuid(id), .uuid(event), .uuid(account)]).first?.decode(0) else { return false }
        _ = try await connection.execute("""
            UPDATE media.event_members SET photo_count = photo_count - 1 WHERE event_id = $1 AND account_id = $2
            """, [.uuid(event), .uuid(owner)])
        _ = try await connection.execute("UPDATE media.events SET photo_count = photo_count - 1 WHERE id = $1", [.uuid(event)])
        try await countersChanged(event, on: connection)
        return true
    }

    func setRole(_ role: Momento.MemberRole, of account: UUID, in event: UUID, on connection: Connection) async throws -> Momento.EventMember? {
        try await connection.query("""
            UPDATE media.event_members SET role = $3 WHERE event_id = $1 AND account_id = $2 AND role <> \(Momento.MemberRole.creator.rawValue)
            RETURNING account_id::text, role, coalesce(invited_by::text, ''), \(UnixMicroseconds.sql("joined_at")), photo_count
            """, [.uuid(event), .uuid(account), .int16(Int16(role.rawValue))]).first.map {
            Momento.EventMember(accountID: try $0.decode(0), role: Momento.MemberRole(rawValue: Int32(try $0.decode(1, as: Int16.self))),
                                invitedBy: try $0.decode(2), joinedAt: Timestamp(microseconds: try $0.decode(3)),
                                photoCount: try $0.decode(4))
        }
    }

    /// Whether photo blob `blob` belongs to an event `account` may see it in: nil when the blob is
    /// in no event; else true when the account took it, or is a member of an event that revealed it.
    static func eventPhotoVisible(_ blob: UUID, to account: UUID, on connection: Connection) async throws -> Bool? {
        let rows = try await connection.query("""
            SELECT bool_or(p.account_id = $2 OR (e.revealed_at IS NOT NULL AND m.account_id IS NOT NULL))
            FROM media.event_photos p JOIN media.events e ON e.id = p.event_id
            LEFT JOIN media.event_members m ON m.event_id = p.event_id AND m.account_id = $2
            WHERE p.blob_id = $1
            """, [.uuid(blob), .uuid(account)])
        return try rows.first?.decode(0, as: Bool?.self)
    }
}
