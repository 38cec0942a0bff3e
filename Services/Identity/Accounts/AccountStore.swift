import Contracts
import Foundation
import Postgres

/// Rows of `identity.accounts`.
enum AccountStore {
    /// The tier is `identity.current_tier(a)`: the cached effective tier, recomputed once a grant
    /// behind it has expired (see `MembershipMigrations.tierGrants`).
    static let columns =
        "a.id, a.app, a.username, a.anonymous, a.role, identity.current_tier(a), a.membership_status, a.created_at"

    /// Inserts an account for `policy`'s app; with an anonymous account the username is
    /// generated, retrying on a clash (longer after a few clashes).
    static func create(policy: AppPolicy, username: String?, anonymous: Bool,
                       on connection: Connection) async throws -> Identity.Account {
        for attempt in 0..<8 {
            let name = username ?? AnonymousUsername.make(length: attempt < 4 ? 4 : 8)
            let rows = try await connection.query("""
                INSERT INTO identity.accounts AS a (id, app, username, anonymous, role, tier, membership_status)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (app, username) DO NOTHING
                RETURNING \(columns)
                """, [.uuid(UUID()), .text(policy.id), .text(name), .bool(anonymous), .text(policy.defaultRole),
                      .text(policy.defaultTier), .text(policy.initialMembershipStatus)])
            if let row = rows.first { return try account(row) }
        }
        throw PostgresError(code: .sqlState(.uniqueViolation), context: "no free username")
    }

    /// The account with `id` in `app`, with its email if it has one.
    static func find(id: UUID, app: String, on connection: Connection) async throws -> Identity.Account? {
        let rows = try await connection.query("""
            SELECT \(columns), c.email FROM identity.accounts a
            LEFT JOIN identity.email_credentials c ON c.account_id = a.id
            WHERE a.id = $1 AND a.app = $2
            """, [.uuid(id), .text(app)])
        return try rows.first.map { row in
            var account = try account(row)
            account.email = try row.decode(8, as: String?.self) ?? ""
            return account
        }
    }

    /// An account from a row starting with `columns`.
    static func account(_ row: PostgresRow) throws -> Identity.Account {
        var account = Identity.Account()
        account.id = (try row.decode(0, as: UUID.self)).uuidString.lowercased()
        account.app = try row.decode(1)
        account.username = try row.decode(2)
        account.anonymous = try row.decode(3)
        account.role = try row.decode(4)
        account.tier = try row.decode(5)
        account.membershipStatus = try row.decode(6)
        account.createdAt = Timestamp(try row.decode(7, as: Date.self))
        return account
    }
}

extension Timestamp {
    /// The time of `date`, to the microsecond (Postgres' precision).
    init(_ date: Date) {
        self.init(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }
}
