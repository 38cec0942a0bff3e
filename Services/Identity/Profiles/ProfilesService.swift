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
    /// Owners' updates without a username change, stored in batches (group commit,
    /// `GroupCommitQueue`); nil: each in a transaction of its own.
    var ownerUpdates: GroupCommitQueue<OwnerUpdate, Result<Profiles.Profile, any Error>>? = nil

    /// One `UpdateProfile` by the profile's owner, without a username change, as a batch of them
    /// stores it.
    struct OwnerUpdate: Sendable {
        var account: UUID
        var app: String
        var update: ProfileUpdate
    }

    /// The services of this area (profiles and roles, safety), for `IdentityServer`.
    static func services(pool: PostgresPool, settings: IdentitySettings,
                         revocations: RevocationList? = nil) throws -> [any RPCService] {
        let outbox = try Outbox(schema: "identity")
        var profiles = ProfilesService(pool: pool, apps: settings.apps, outbox: outbox, revocationList: revocations)
        let saver = profiles
        profiles.ownerUpdates = GroupCommitQueue(maxBatch: settings.writeBatch, maxRunning: settings.writeRunners) {
            try await saver.save($0)
        }
        return [profiles, SafetyService(pool: pool, apps: settings.apps, outbox: outbox)]
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
        let call = OwnerUpdate(account: id, app: caller.app, update: update)
        guard let username = update.username else {
            if let ownerUpdates { return try await pool.withTransactionSpan { try await ownerUpdates.submit(call) }.get() }
            return try await save([call])[0].get()
        }
        do {
            return try await pool.withTransaction { connection in
                _ = try await ProfileStore.rename(id: id, app: caller.app, to: username, on: connection)
                var held: [UUID: LockedProfile] = [:]
                return try await save(call, holding: &held, on: connection).get()
            }
        } catch let error as PostgresError where error.sqlState == .uniqueViolation
            && error.constraintName == "accounts_app_username_key" {
            throw ProfileError.usernameTaken
        }
    }

    /// Owners' updates in one transaction: the profiles locked in one round trip (in account
    /// order, so that two batches lock the ones they share in one order), then each changed and
    /// saved with its `ProfileUpdated` event, the saves and events going with the COMMIT.
    /// Answers in `batch`'s order. An update the profile refuses (a `ProfileError`) or whose
    /// account is gone fails alone; two updates of one profile apply in the order they came.
    func save(_ batch: [OwnerUpdate]) async throws -> [Result<Profiles.Profile, any Error>] {
        let order = batch.indices.sorted { (batch[$0].account, $0) < (batch[$1].account, $1) }
        return try await pool.withTransaction { connection in
            var outcomes = [Result<Profiles.Profile, any Error>?](repeating: nil, count: batch.count)
            var held = try await ProfileStore.lock(batch.map { ($0.account, $0.app) }, on: connection)
            for index in order { outcomes[index] = try await save(batch[index], holding: &held, on: connection) }
            return outcomes.map { $0! }
        }
    }

    /// One owner's update in the caller's transaction. `held` has each profile as this
    /// transaction has left it (its saves wait for the COMMIT), locked once.
    private func save(_ call: OwnerUpdate, holding held: inout [UUID: LockedProfile],
                      on connection: Connection) async throws -> Result<Profiles.Profile, any Error> {
        let locked: LockedProfile
        if let profile = held[call.account] {
            locked = profile
        } else if let profile = try await ProfileStore.lock(id: call.account, app: call.app, on: connection) {
            locked = profile
        } else {
            return .failure(IdentityError.accountNotFound)
        }
        let content: ProfileContent
        do {
            content = try call.update.applied(to: locked.record.content)
        } catch {
            held[call.account] = locked
            return .failure(error)
        }
        let saved = try await ProfileStore.save(locked, content: content, verified: locked.record.verified,
                                                byOwner: true, on: connection)
        held[call.account] = LockedProfile(record: saved, now: locked.now)
        let policy = try apps.policy(for: call.app)
        return .success(try await published(saved, app: call.app, on: connection)
            .message(as: .owner, admitted: saved.isAdmitted(under: policy)))
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
