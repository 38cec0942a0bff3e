#if canImport(Glibc)
import Glibc
#endif
import Contracts
import Foundation
import Postgres
import Runtime

/// `identity grant-role --app APP (--email E | --username U | --account-id ID) --role ROLE`:
/// how an operator makes the first admin of an app (after that, admins use SetRole). Connects
/// as RV_PG_URL_IDENTITY (default: the local cluster), applies pending migrations, sets the
/// role and appends `RoleChanged` (changed_by empty) in one transaction.
///
/// Exit status: 0 when the account has the role, 1 when there is no such account or the
/// database fails (a connection is retried for 15 s first), 2 for bad arguments.
struct GrantRoleCommand: Sendable {
    static let name = "grant-role"
    static let usage = "usage: identity grant-role --app APP (--email EMAIL | --username NAME | --account-id UUID) --role ROLE"

    /// How the account is named on the command line.
    enum Target: Sendable, Equatable {
        case email(String)
        case username(String)
        case accountID(UUID)
    }

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    let app: String
    let target: Target
    let role: String

    /// Reads the flags after `grant-role`; the app and role must be in `apps`' policies.
    init(arguments: [String], apps: AppPolicies) throws(UsageError) {
        var values: [String: String] = [:]
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard ["--app", "--email", "--username", "--account-id", "--role"].contains(flag) else {
                throw UsageError(description: "unknown argument \(flag)")
            }
            guard let value = remaining.popFirst(), values[flag] == nil else {
                throw UsageError(description: "\(flag) needs one value")
            }
            values[flag] = value
        }
        guard let app = values["--app"], let role = values["--role"] else {
            throw UsageError(description: "--app and --role are required")
        }
        let policy: AppPolicy
        do { policy = try apps.policy(for: app) } catch { throw UsageError(description: "unknown app \(app)") }
        guard policy.roles.contains(role) else {
            throw UsageError(description: "\(app) has no role \(role) (its roles: \(policy.roles.joined(separator: ", ")))")
        }
        let targets = ["--email", "--username", "--account-id"].compactMap { flag in values[flag].map { (flag, $0) } }
        guard targets.count == 1, let chosen = targets.first else {
            throw UsageError(description: "name the account with exactly one of --email, --username, --account-id")
        }
        let (flag, value) = chosen
        switch flag {
        case "--email":
            do { target = .email(try EmailAddress(value).value) } catch { throw UsageError(description: "invalid email") }
        case "--username":
            guard let key = Username.lookupKey(value) else { throw UsageError(description: "invalid username") }
            target = .username(key)
        default:
            guard let id = UUID(uuidString: value) else { throw UsageError(description: "--account-id is not a UUID") }
            target = .accountID(id)
        }
        self.app = app
        self.role = role
    }

    /// Parses, runs and reports; returns the exit status.
    static func main(arguments: [String], environment: Environment = .process, apps standard: AppPolicies = .standard) async -> Int32 {
        let command: GrantRoleCommand
        let apps: AppPolicies
        do {
            apps = try AppPoliciesFile.load(from: EnvironmentReader(environment: environment), onto: standard)
        } catch {
            report("identity grant-role: \(error)")
            return 2
        }
        do {
            command = try GrantRoleCommand(arguments: arguments, apps: apps)
        } catch {
            report("identity grant-role: \(error)\n\(usage)")
            return 2
        }
        let variable = ServiceConfiguration.postgresVariable(service: "identity")
        let url = environment[variable] ?? "postgresql://rv_identity:rv_identity_local@127.0.0.1:7432/rendezvous"
        var configuration: PostgresConfiguration
        do {
            configuration = try PostgresConfiguration(url: url)
        } catch {
            report("identity grant-role: \(variable) is not a valid Postgres URL")
            return 2
        }
        configuration.applicationName = "rv-identity-grant-role"
        configuration.poolSize = 1
        let pool = PostgresPool(configuration: configuration)
        defer { pool.close() }
        do {
            try await waitForDatabase(pool)
            try await Migrator(schema: "identity", migrations: try IdentityMigrations.all()).migrate(pool)
            guard let assignment = try await command.run(pool: pool, outbox: try Outbox(schema: "identity")) else {
                report("identity grant-role: no account \(command.target.text) in \(command.app)")
                return 1
            }
            print(assignment.changed
                  ? "\(assignment.accountID) in \(command.app) is now \(assignment.role) (was \(assignment.previousRole))"
                  : "\(assignment.accountID) in \(command.app) is already \(assignment.role)")
            fflush(nil)
            return 0
        } catch let error as PostgresError where error.code == .connectionFailed {
            // libpq's reason (host, port, refusal or resolver answer): an operator's message, no user data.
            report("identity grant-role: cannot connect to Postgres: \(error.messagePrimary ?? "\(error)")")
            return 1
        } catch {
            report("identity grant-role: \(error)")
            return 1
        }
    }

    /// Run right after a deployment, the first connection can fail while Postgres starts or the
    /// network's resolver learns its name: tries for up to `patience`, then throws the last failure.
    private static func waitForDatabase(_ pool: PostgresPool, patience: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                _ = try await pool.withConnection { try await $0.query("SELECT 1") }
                return
            } catch let error as PostgresError where error.code == .connectionFailed && ContinuousClock.now < deadline {
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Finds the account and sets its role; nil when the app has no such account.
    func run(pool: PostgresPool, outbox: Outbox) async throws -> Profiles.RoleAssignment? {
        try await pool.withTransaction { connection in
            guard let id = try await accountID(on: connection) else { return nil }
            let roles = RoleStore(outbox: outbox)
            guard let current = try await roles.lockedRole(of: id, app: app, on: connection) else { return nil }
            return try await roles.change(id, app: app, from: current, to: role, changedBy: nil, on: connection)
        }
    }

    private func accountID(on connection: Connection) async throws -> UUID? {
        let rows = switch target {
        case .email(let email):
            try await connection.query("""
                SELECT a.id FROM identity.accounts a JOIN identity.email_credentials c ON c.account_id = a.id
                WHERE a.app = $1 AND c.email = $2
                """, [.text(app), .text(email)])
        case .username(let username):
            try await connection.query("SELECT id FROM identity.accounts WHERE app = $1 AND username = $2",
                                       [.text(app), .text(username)])
        case .accountID(let id):
            try await connection.query("SELECT id FROM identity.accounts WHERE app = $1 AND id = $2",
                                       [.text(app), .uuid(id)])
        }
        return try rows.first?.decode(0, as: UUID.self)
    }

    private static func report(_ text: String) {
        LogSink.standardError.write(text + "\n")
        LogSink.standardError.flush()
    }
}

extension GrantRoleCommand.Target {
    var text: String {
        switch self {
        case .email(let email): "with email \(email)"
        case .username(let username): "named \(username)"
        case .accountID(let id): id.uuidString.lowercased()
        }
    }
}
