import Foundation
import Postgres
import Runtime

/// Rows of `identity.profiles`, read joined to their account. An account without a row yet
/// reads as a profile with the defaults (active, nothing written).
enum ProfileStore {
    /// Columns 0–27 of a profile; `decode` reads them back.
    static let columns = """
        a.id, a.app, a.username, a.role, \(UnixMicroseconds.sql("a.created_at")),
        COALESCE(p.display_name, ''), COALESCE(p.show_real_name, false),
        COALESCE(p.first_name, ''), COALESCE(p.last_name, ''),
        EXTRACT(YEAR FROM p.birth_date)::int4, EXTRACT(MONTH FROM p.birth_date)::int4,
        EXTRACT(DAY FROM p.birth_date)::int4, p.gender,
        COALESCE(p.bio, ''), COALESCE(p.title, ''), COALESCE(p.tags, '{}'), COALESCE(p.interests, '{}'),
        COALESCE(p.preferred_cuisines, '{}'), COALESCE(p.neighborhood, ''),
        public.ST_Y(p.location::public.geometry), public.ST_X(p.location::public.geometry),
        COALESCE(p.active, true), COALESCE(p.onboarding_complete, false), COALESCE(p.verified, false),
        COALESCE(p.photo_ids, '{}'), \(UnixMicroseconds.sql("p.last_active_at")), \(UnixMicroseconds.sql("p.updated_at")),
        a.membership_status
        """

    /// Metres between the profile (its `MemberLocation`) and `reader`'s profile (column 28), NULL
    /// when either has no location.
    private static let distance = """
        public.ST_Distance(\(MemberLocation.sql("p.location")), (SELECT r.location FROM identity.profiles r WHERE r.account_id = $3))
        """

    private static let joined = "identity.accounts a LEFT JOIN identity.profiles p ON p.account_id = a.id"

    /// The profile of account `id` in `app`, with its distance from `reader`.
    static func find(id: UUID, app: String, reader: UUID, on connection: Connection) async throws -> ProfileRecord? {
        let rows = try await connection.query("""
            SELECT \(columns), \(distance) FROM \(joined) WHERE a.id = $1 AND a.app = $2
            """, [.uuid(id), .text(app), .uuid(reader)])
        return try rows.first.map { try decode($0, withDistance: true) }
    }

    /// The profile of the account named `username` in `app`, with its distance from `reader`.
    static func find(username: String, app: String, reader: UUID, on connection: Connection) async throws -> ProfileRecord? {
        let rows = try await connection.query("""
            SELECT \(columns), \(distance) FROM \(joined) WHERE a.username = $1 AND a.app = $2
            """, [.text(username), .text(app), .uuid(reader)])
        return try rows.first.map { try decode($0, withDistance: true) }
    }

    /// The account of `app` named `username`, if any.
    static func holder(of username: Username, app: String, on connection: Connection) async throws -> UUID? {
        let rows = try await connection.query("SELECT id FROM identity.accounts WHERE username = $1 AND app = $2",
                                              [.text(username.value), .text(app)])
        return try rows.first?.decode(0)
    }

    /// The owner's read: creates the row on first use and marks the owner active (at most
    /// once a minute, so frequent reads do not each write).
    static func touch(id: UUID, app: String, on connection: Connection) async throws -> ProfileRecord? {
        try await connection.execute("""
            INSERT INTO identity.profiles AS p (account_id, app, last_active_at)
            SELECT a.id, a.app, now() FROM identity.accounts a WHERE a.id = $1 AND a.app = $2
            ON CONFLICT (account_id) DO UPDATE SET last_active_at = now()
            WHERE p.last_active_at IS NULL OR p.last_active_at < now() - interval '1 minute'
            """, [.uuid(id), .text(app)])
        let rows = try await connection.query("""
            SELECT \(columns) FROM \(joined) WHERE a.id = $1 AND a.app = $2
            """, [.uuid(id), .text(app)])
        return try rows.first.map { try decode($0) }
    }

    /// The profile of `id` in `app`, its row created if missing and locked until the
    /// transaction ends, for a read-modify-write.
    static func lock(id: UUID, app: String, on connection: Connection) async throws -> LockedProfile? {
        let lock = PostgresStatement("""
            SELECT \(columns), \(UnixMicroseconds.sql("now()"))
            FROM identity.accounts a JOIN identity.profiles p ON p.account_id = a.id
            WHERE a.id = $1 AND a.app = $2 FOR UPDATE OF p
            """, [.uuid(id), .text(app)])
        // The row and the transaction's now() (column 28).
        func locked(_ row: PostgresRow) throws -> LockedProfile { try LockedProfile(record: decode(row), now: row.decode(28)) }
        if let row = try await connection.query(lock.sql, lock.params).first {
            return try locked(row)
        }
        // The profile's first write: its row, then the lock, in one round trip (the lock's read
        // sees the row the insert made, or that a concurrent first write made).
        let results = try await connection.pipeline([
            PostgresStatement("""
                INSERT INTO identity.profiles (account_id, app)
                SELECT a.id, a.app FROM identity.accounts a WHERE a.id = $1 AND a.app = $2
                ON CONFLICT (account_id) DO NOTHING
                """, [.uuid(id), .text(app)]),
            lock,
        ])
        return try results[1].first.map(locked)
    }

    /// The existing profiles of `accounts` (id and app), locked in account order until the
    /// transaction ends, in one round trip: a batch's locks (`ProfilesService.save`). A profile
    /// not written yet is missing here; `lock(id:app:on:)` creates it.
    static func lock(_ accounts: [(id: UUID, app: String)], on connection: Connection) async throws -> [UUID: LockedProfile] {
        let rows = try await connection.query("""
            SELECT \(columns), \(UnixMicroseconds.sql("now()"))
            FROM identity.accounts a JOIN identity.profiles p ON p.account_id = a.id
            WHERE (a.id, a.app) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))
            ORDER BY a.id FOR UPDATE OF p
            """, [.uuidArray(accounts.map(\.id)), .textArray(accounts.map(\.app))])
        var locked: [UUID: LockedProfile] = [:]
        for row in rows {
            let profile = try LockedProfile(record: decode(row), now: row.decode(28))
            locked[profile.record.accountID] = profile
        }
        return locked
    }

    /// Changes the account's username; false when it already had it. A name another account
    /// of the app has raises the unique violation of `accounts_app_username_key`.
    static func rename(id: UUID, app: String, to username: Username, on connection: Connection) async throws -> Bool {
        try await connection.execute("""
            UPDATE identity.accounts SET username = $3 WHERE id = $1 AND app = $2 AND username <> $3
            """, [.uuid(id), .text(app), .text(username.value)]) == 1
    }

    /// Writes `content` and `verified` to the locked row (`byOwner` also marks the owner active)
    /// with the transaction's COMMIT (`Connection.executeAtCommit`), and returns the profile as
    /// saved: the locked one with the new values, stamped with the transaction's time as the
    /// row will be. Nothing reads the row before the commit, so nothing waits for the write.
    static func save(_ locked: LockedProfile, content: ProfileContent, verified: Bool, byOwner: Bool,
                     on connection: Connection) async throws -> ProfileRecord {
        try await connection.executeAtCommit(PostgresStatement(update, updateParameters(
            id: locked.record.accountID, content: content, verified: verified, byOwner: byOwner)))
        var saved = locked.record
        saved.content = content
        saved.verified = verified
        saved.updatedAt = locked.now
        if byOwner { saved.lastActiveAt = locked.now }
        return saved
    }

    private static let update = """
        UPDATE identity.profiles SET
            display_name = $2, show_real_name = $3, first_name = $4, last_name = $5, birth_date = $6::date,
            gender = $7, bio = $8, title = $9, tags = $10, interests = $11, preferred_cuisines = $12,
            neighborhood = $13,
            location = CASE WHEN $14::float8 IS NULL THEN NULL
                            ELSE public.ST_SetSRID(public.ST_MakePoint($15::float8, $14::float8), 4326)::public.geography END,
            active = $16, onboarding_complete = $17, verified = $18, photo_ids = $19, updated_at = now(),
            last_active_at = CASE WHEN $20 THEN now() ELSE last_active_at END
        WHERE account_id = $1
        """

    private static func updateParameters(id: UUID, content: ProfileContent, verified: Bool, byOwner: Bool) -> [PostgresValue] {
        [.uuid(id), .text(content.displayName), .bool(content.showRealName), .text(content.firstName),
         .text(content.lastName), .text(content.birthDate?.isoText), .text(content.gender?.rawValue),
         .text(content.bio), .text(content.title), .textArray(content.tags), .textArray(content.interests),
         .textArray(content.preferredCuisines), .text(content.neighborhood),
         .double(content.location?.latitude), .double(content.location?.longitude),
         .bool(content.active), .bool(content.onboardingComplete), .bool(verified),
         .uuidArray(content.photoIDs), .bool(byOwner)]
    }

    /// Up to `limit` profiles of `app` after `cursor`, oldest account first. With `hiddenFrom`,
    /// accounts in a block with that account (either way) are left out.
    static func list(app: String, after cursor: PageCursor?, limit: Int, activeOnly: Bool, hiddenFrom: UUID?,
                     on connection: Connection) async throws -> [ProfileRecord] {
        let rows = try await connection.query("""
            SELECT \(columns) FROM \(joined)
            WHERE a.app = $1
              AND (NOT $2::bool OR COALESCE(p.active, true))
              AND ($3::int8 IS NULL
                   OR (a.created_at, a.id) > ('epoch'::timestamptz + $3::int8 * interval '1 microsecond', $4::uuid))
              AND ($5::uuid IS NULL OR NOT EXISTS (
                    SELECT 1 FROM identity.blocks b
                    WHERE (b.blocker_id = $5 AND b.blocked_id = a.id) OR (b.blocker_id = a.id AND b.blocked_id = $5)))
            ORDER BY a.created_at, a.id
            LIMIT $6
            """, [.text(app), .bool(activeOnly), .int64(cursor?.microseconds), .uuid(cursor?.id), .uuid(hiddenFrom),
                  .int(limit)])
        return try rows.map { try decode($0) }
    }

    /// A record from a row of `columns`, plus the distance in column 28 `withDistance`.
    static func decode(_ row: PostgresRow, withDistance: Bool = false) throws -> ProfileRecord {
        var record = ProfileRecord(accountID: try row.decode(0), app: try row.decode(1), username: try row.decode(2),
                                   role: try row.decode(3), createdAt: try row.decode(4))
        var content = ProfileContent()
        content.displayName = try row.decode(5)
        content.showRealName = try row.decode(6)
        content.firstName = try row.decode(7)
        content.lastName = try row.decode(8)
        if let year = try row.decode(9, as: Int32?.self), let month = try row.decode(10, as: Int32?.self),
           let day = try row.decode(11, as: Int32?.self) {
            content.birthDate = BirthDate(verifiedYear: Int(year), month: Int(month), day: Int(day))
        }
        content.gender = try row.decode(12, as: String?.self).flatMap(ProfileGender.init(rawValue:))
        content.bio = try row.decode(13)
        content.title = try row.decode(14)
        content.tags = try row.decode(15)
        content.interests = try row.decode(16)
        content.preferredCuisines = try row.decode(17)
        content.neighborhood = try row.decode(18)
        if let latitude = try row.decode(19, as: Double?.self), let longitude = try row.decode(20, as: Double?.self) {
            content.location = GeoLocation(verifiedLatitude: latitude, longitude: longitude)
        }
        content.active = try row.decode(21)
        content.onboardingComplete = try row.decode(22)
        record.verified = try row.decode(23)
        content.photoIDs = try row.decode(24)
        record.lastActiveAt = try row.decode(25)
        record.updatedAt = try row.decode(26)
        record.membershipStatus = try row.decode(27)
        record.content = content
        if withDistance { record.distanceMeters = try row.decode(28) }
        return record
    }
}

/// A profile locked for a read-modify-write, and its transaction's `now()` (microseconds since
/// the epoch): the time `ProfileStore.save` stamps the row with.
struct LockedProfile {
    var record: ProfileRecord
    let now: Int64
}
