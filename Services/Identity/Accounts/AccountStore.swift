import Contracts
import Foundation
import Postgres
import Runtime

/// Rows of `identity.accounts`.
enum AccountStore {
    /// The tier is `identity.current_tier(a)`: the cached effective tier, recomputed once a grant
    /// behind it has expired (see `MembershipMigrations.tierGrants`).
    static let columns =
        "a.id, a.app, a.username, a.anonymous, a.role, identity.current_tier(a), a.membership_status, a.created_at"

    /// Inserts an account for `policy`'s app, its username generated (see below).
    static func create(policy: AppPolicy, anonymous: Bool, on connection: Connection) async throws -> Identity.Account {
        try await create([(policy, anonymous)], on: connection)[0]
    }

    /// Inserts an account for each of `accounts`' apps in one statement (a batch of sign-ups,
    /// `GroupCommitQueue`), answering in their order. Usernames are generated, and the accounts
    /// whose name clashed are inserted again with new ones (longer after a few clashes). Six
    /// characters give 31^6, about 887 million names; with four (923,521), an app of 188,000
    /// anonymous accounts made 16,038 inserts for 12,837 sign-ins in a benchmark, a round trip
    /// more for each clash.
    static func create(_ accounts: [(policy: AppPolicy, anonymous: Bool)], on connection: Connection) async throws
        -> [Identity.Account] {
        var created = [Identity.Account?](repeating: nil, count: accounts.count)
        var pending = Array(accounts.indices)
        for attempt in 0..<8 where !pending.isEmpty {
            let ids = pending.map { _ in UUID.random() }
            let policies = pending.map { accounts[$0].policy }
            let rows = try await connection.query("""
                INSERT INTO identity.accounts AS a (id, app, username, anonymous, role, tier, membership_status)
                SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[], $5::text[], $6::text[], $7::text[])
                ON CONFLICT (app, username) DO NOTHING
                RETURNING \(columns)
                """, [.uuidArray(ids), .textArray(policies.map(\.id)),
                      .textArray(pending.map { _ in AnonymousUsername.make(length: attempt < 4 ? 6 : 10) }),
                      .boolArray(pending.map { accounts[$0].anonymous }), .textArray(policies.map(\.defaultRole)),
                      .textArray(policies.map(\.defaultTier)), .textArray(policies.map(\.initialMembershipStatus))])
            var inserted: [String: Identity.Account] = [:]
            for row in rows {
                let account = try account(row)
                inserted[account.id] = account
            }
            pending = zip(pending, ids).compactMap { index, id in
                guard let account = inserted[id.uuidString.lowercased()] else { return index }
                created[index] = account
                return nil
            }
        }
        guard pending.isEmpty else { throw PostgresError(code: .sqlState(.uniqueViolation), context: "no free username") }
        return created.map { $0! }
    }

    /// The account with `id` in `app`, with its email (its email credential's, else a verified
    /// one from Apple or Google), phone and sign-in methods, which triggers keep on its row
    /// (`SignInMigrations.accountCredentials`).
    static func find(id: UUID, app: String, on connection: Connection) async throws -> Identity.Account? {
        let statement = find(id: id, app: app)
        return try found(try await connection.query(statement.sql, statement.params))
    }

    /// The read behind `find`, for a caller that sends it itself (GetAccount batches it).
    static func find(id: UUID, app: String) -> PostgresStatement {
        PostgresStatement("""
            SELECT \(columns), a.credential_email, a.has_email_credential, a.credential_phone, a.credential_providers
            FROM identity.accounts a
            WHERE a.id = $1 AND a.app = $2
            """, [.uuid(id), .text(app)])
    }

    /// The account `find(id:app:)`'s rows hold, if any.
    static func found(_ rows: PostgresRows) throws -> Identity.Account? {
        try rows.first.map { row in
            var account = try account(row)
            account.email = try row.decode(8, as: String?.self) ?? ""
            account.phone = try row.decode(10, as: String?.self) ?? ""
            var methods = try row.decode(11, as: [String].self)
            if try row.decode(9, as: Bool.self) { methods.append(SignInMethod.email.rawValue) }
            if !account.phone.isEmpty { methods.append(SignInMethod.phone.rawValue) }
            account.signInMethods = methods.sorted()
            return account
        }
    }

    /// Locks the account's row for the rest of the transaction, so changes to its credentials
    /// happen one at a time; UNAUTHENTICATED `ACCOUNT_NOT_FOUND` when it is gone.
    static func lock(_ id: UUID, app: String, on connection: Connection) async throws {
        let rows = try await connection.query(
            "SELECT 1 FROM identity.accounts WHERE id = $1 AND app = $2 FOR UPDATE", [.uuid(id), .text(app)])
        guard !rows.isEmpty else { throw IdentityError.accountNotFound }
    }

    /// The account now has a credential: it is no longer an anonymous device account.
    static func markLinked(_ id: UUID, on connection: Connection) async throws {
        _ = try await connection.execute(
            "UPDATE identity.accounts SET anonymous = false WHERE id = $1 AND anonymous", [.uuid(id)])
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
