import Contracts
import Foundation
import Postgres

/// The waitlist of an invite-only app: its accounts whose membership status is "waitlisted",
/// in the order they joined (created, then id). Position 1 is next in line.
enum MemberWaitlist {
    /// The account's position and when it joined; nil unless it is waitlisted in `app`.
    static func position(of accountID: UUID, app: String, on connection: Connection) async throws
        -> Membership.WaitlistPosition? {
        let rows = try await connection.query("""
            SELECT a.created_at,
                   (SELECT count(*) FROM identity.accounts w
                    WHERE w.app = a.app AND w.membership_status = 'waitlisted'
                      AND (w.created_at, w.id) < (a.created_at, a.id)) + 1
            FROM identity.accounts a
            WHERE a.id = $1 AND a.app = $2 AND a.membership_status = 'waitlisted'
            """, [.uuid(accountID), .text(app)])
        return try rows.first.map { row in
            Membership.WaitlistPosition(position: Int32(clamping: try row.decode(1, as: Int64.self)),
                                        joinedAt: Timestamp(try row.decode(0, as: Date.self)))
        }
    }

    /// Up to `limit` waitlisted accounts of `app` after `token` (from the start when nil), and
    /// the token of the next page (nil on the last).
    static func page(app: String, after token: WaitlistPageToken?, limit: Int, on connection: Connection) async throws
        -> (members: [Membership.WaitlistMember], next: WaitlistPageToken?) {
        let rows = try await connection.query("""
            WITH page AS (
                SELECT a.id, a.username, a.created_at, c.email FROM identity.accounts a
                LEFT JOIN identity.email_credentials c ON c.account_id = a.id
                WHERE a.app = $1 AND a.membership_status = 'waitlisted'
                  AND ($2::timestamptz IS NULL OR (a.created_at, a.id) > ($2, $3))
                ORDER BY a.created_at, a.id LIMIT $4
            ), before AS (
                SELECT count(*) AS n FROM identity.accounts w
                WHERE $2::timestamptz IS NOT NULL AND w.app = $1 AND w.membership_status = 'waitlisted'
                  AND (w.created_at, w.id) <= ($2, $3)
            )
            SELECT p.id, p.username, p.email, p.created_at,
                   (SELECT n FROM before) + row_number() OVER (ORDER BY p.created_at, p.id),
                   (extract(epoch FROM p.created_at) * 1000000)::bigint
            FROM page p ORDER BY p.created_at, p.id
            """, [.text(app), .timestamptz(token?.joinedAt), .uuid(token?.accountID), .int(limit + 1)])
        var members: [Membership.WaitlistMember] = []
        var last: WaitlistPageToken?
        for row in rows.prefix(limit) {
            var member = Membership.WaitlistMember()
            let id: UUID = try row.decode(0)
            member.accountID = id.uuidString.lowercased()
            member.username = try row.decode(1)
            member.email = try row.decode(2, as: String?.self) ?? ""
            member.joinedAt = Timestamp(try row.decode(3, as: Date.self))
            member.position = Int32(clamping: try row.decode(4, as: Int64.self))
            members.append(member)
            last = WaitlistPageToken(joinedAtMicroseconds: try row.decode(5), accountID: id)
        }
        return (members, rows.count > limit ? last : nil)
    }
}
