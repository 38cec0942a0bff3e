import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.identity.v1.Profiles`: profile reads and updates (here) and roles
/// (`ProfilesService+Roles`). Who may read what is documented in profiles.proto.
struct ProfilesService: ProfilesProvider {
    let pool: PostgresPool
    let apps: AppPolicies
    let outbox: Outbox
    /// This process's list of stale accounts, told at once of a role change.
    var revocationList: RevocationList? = nil

    /// The services of this area (profiles and roles, safety), for `IdentityServer`.
    static func services(pool: PostgresPool, settings: IdentitySettings,
                         revocations: RevocationList? = nil) throws -> [any RPCService] {
        let outbox = try Outbox(schema: "identity")
        return [ProfilesService(pool: pool, apps: settings.apps, outbox: outbox, revocationList: revocations),
                SafetyService(pool: pool, apps: settings.apps, outbox: outbox)]
    }

    func getMyProfile(_ request: Profiles.GetMyProfileRequest, context: ServerCallContext) async throws
        -> Profiles.Profile {
        try await myProfile(caller: try context.requireAccount())
    }

    func updateProfile(_ request: Profiles.UpdateProfileRequest, context: ServerCallContext) async throws
        -> Profiles.Profile {
        try await updateProfile(request, caller: try context.requireAccount())
    }

    func getProfile(_ request: Profiles.GetProfileRequest, context: ServerCallContext) async throws
        -> Profiles.Profile {
        let caller = try context.requireAccount()
        let id = try LookupError.accountID(request.accountID)
        return try await profile(of: caller) { reader, connection in
            try await ProfileStore.find(id: id, app: caller.app, reader: reader, on: connection)
        }
    }

    func getProfileByUsername(_ request: Profiles.GetProfileByUsernameRequest, context: ServerCallContext) async throws
        -> Profiles.Profile {
        let caller = try context.requireAccount()
        guard let username = Username.lookupKey(request.username) else { throw LookupError.userNotFound }
        return try await profile(of: caller) { reader, connection in
            try await ProfileStore.find(username: username, app: caller.app, reader: reader, on: connection)
        }
    }

    func checkUsername(_ request: Profiles.CheckUsernameRequest, context: ServerCallContext) async throws
        -> Profiles.CheckUsernameResponse {
        let caller = try context.requireAccount()
        let callerID = try caller.accountUUID()
        let username = try Username(request.username)
        let holder = try await pool.withConnection { connection in
            try await ProfileStore.holder(of: username, app: caller.app, on: connection)
        }
        return .init(username: username.value, available: holder == nil || holder == callerID)
    }

    func listProfiles(_ request: Profiles.ListProfilesRequest, context: ServerCallContext) async throws
        -> Profiles.ListProfilesResponse {
        try await listProfiles(request, caller: try context.requireAccount())
    }

    func setVerified(_ request: Profiles.SetVerifiedRequest, context: ServerCallContext) async throws
        -> Profiles.Profile {
        try await setVerified(request, caller: try context.requireAccount())
    }

    /// The caller's own profile, marking it active.
    private func myProfile(caller: AuthenticatedAccount) async throws -> Profiles.Profile {
        let id = try caller.accountUUID()
        let record = try await pool.withConnection { connection in
            try await ProfileStore.touch(id: id, app: caller.app, on: connection)
        }
        guard let record else { throw IdentityError.accountNotFound }
        return record.message(as: .owner, admitted: record.isAdmitted(under: try apps.policy(for: caller.app)))
    }

    /// Another account's profile found by `find`, if the caller may see it: the app's profile
    /// readers see every profile in full; others only active ones of admitted members, in the
    /// member view; no one but an admin sees across a block. The caller's own profile is its
    /// owner view.
    private func profile(of caller: AuthenticatedAccount,
                         find: (UUID, Connection) async throws -> ProfileRecord?) async throws -> Profiles.Profile {
        let readerID = try caller.accountUUID()
        let policy = try apps.policy(for: caller.app)
        let found = try await pool.withConnection { connection -> (ProfileRecord, ProfileView)? in
            let role = try await Authorization.currentRole(of: caller, on: connection)
            guard let record = try await find(readerID, connection) else { throw LookupError.userNotFound }
            if record.accountID == readerID { return nil }
            let isReader = policy.profileReaderRoles.contains(role)
            guard isReader || (record.content.active && record.isAdmitted(under: policy)) else {
                throw LookupError.userNotFound
            }
            if role != Authorization.adminRole,
               try await BlockStore.isBlocked(readerID, record.accountID, on: connection) {
                throw LookupError.userNotFound
            }
            return (record, isReader ? .reader : .member)
        }
        guard let found else { return try await myProfile(caller: caller) }
        return found.0.message(as: found.1, admitted: found.0.isAdmitted(under: policy))
    }

    private func updateProfile(_ request: Profiles.UpdateProfileRequest, caller: AuthenticatedAccount) async throws
        -> Profiles.Profile {
        let id = try caller.accountUUID()
        let update = try ProfileUpdate(request, policy: try apps.policy(for: caller.app))
        do {
            return try await pool.withTransaction { connection in
                if let username = update.username {
                    _ = try await ProfileStore.rename(id: id, app: caller.app, to: username, on: connection)
                }
                guard let locked = try await ProfileStore.lock(id: id, app: caller.app, on: connection) else {
                    throw IdentityError.accountNotFound
                }
                let content = try update.applied(to: locked.record.content)
                let saved = try await ProfileStore.save(locked, content: content, verified: locked.record.verified,
                                                        byOwner: true, on: connection)
                return try await published(saved, app: caller.app, on: connection)
                    .message(as: .owner, admitted: saved.isAdmitted(under: try apps.policy(for: caller.app)))
            }
        } catch let error as PostgresError where error.sqlState == .uniqueViolation
            && error.constraintName == "accounts_app_username_key" {
            throw ProfileError.usernameTaken
        }
    }

    private func listProfiles(_ request: Profiles.ListProfilesRequest, caller: AuthenticatedAccount) async throws
        -> Profiles.ListProfilesResponse {
        let readerID = try caller.accountUUID()
        let policy = try apps.policy(for: caller.app)
        let pageSize = try PageCursor.pageSize(request.pageSize)
        let cursor = try PageCursor.parse(request.pageToken)
        let records = try await pool.withConnection { connection in
            let role = try await Authorization.requireRole(policy.profileReaderRoles, caller, on: connection)
            return try await ProfileStore.list(app: caller.app, after: cursor, limit: pageSize + 1,
                                               activeOnly: request.activeOnly,
                                               hiddenFrom: role == Authorization.adminRole ? nil : readerID,
                                               on: connection)
        }
        let page = records.prefix(pageSize)
        var response = Profiles.ListProfilesResponse(
            profiles: page.map { $0.message(as: $0.accountID == readerID ? .owner : .reader, admitted: $0.isAdmitted(under: policy)) })
        if records.count > pageSize, let last = page.last {
            response.nextPageToken = PageCursor(microseconds: last.createdAt, id: last.accountID).token
        }
        return response
    }

    private func setVerified(_ request: Profiles.SetVerifiedRequest, caller: AuthenticatedAccount) async throws
        -> Profiles.Profile {
        try await pool.withTransaction { connection in
            try await Authorization.requireAdmin(caller, on: connection)
            let id = try LookupError.accountID(request.accountID)
            guard let locked = try await ProfileStore.lock(id: id, app: caller.app, on: connection) else {
                throw LookupError.userNotFound
            }
            let policy = try apps.policy(for: caller.app)
            guard locked.record.verified != request.verified else {
                return locked.record.message(as: .reader, admitted: locked.record.isAdmitted(under: policy))
            }
            let saved = try await ProfileStore.save(locked, content: locked.record.content,
                                                    verified: request.verified, byOwner: false, on: connection)
            return try await published(saved, app: caller.app, on: connection)
                .message(as: .reader, admitted: saved.isAdmitted(under: policy))
        }
    }

    /// The profile just saved, once its `ProfileUpdated` event (payload: the full Profile, with
    /// whether the app admits the account) is appended in the same transaction.
    private func published(_ record: ProfileRecord, app: String, on connection: Connection) async throws -> ProfileRecord {
        let payload = record.message(as: .owner, admitted: record.isAdmitted(under: try apps.policy(for: app)))
        try await outbox.appendAtCommit(OutboxEvent(type: "ProfileUpdated", app: app, aggregateID: payload.accountID,
                                                    payload: payload.serializedBytes()), on: connection)
        return record
    }
}
