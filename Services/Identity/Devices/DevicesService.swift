import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// `rendezvous.identity.v1.Devices`: the caller's own push tokens. Every method needs an
/// access token; rows are the caller's account's, in the caller's app.
struct DevicesService: DevicesProvider {
    let pool: PostgresPool
    let settings: DeviceSettings

    private var store: PushTokenStore { PushTokenStore(settings: settings) }

    func registerPushToken(_ request: Devices.RegisterPushTokenRequest, context: ServerCallContext) async throws
        -> Devices.PushToken {
        let caller = try context.requireAccount()
        return try await register(try PushTokenRegistration(request), caller: caller)
    }

    func refreshPushToken(_ request: Devices.RefreshPushTokenRequest, context: ServerCallContext) async throws
        -> Devices.PushToken {
        try await refresh(request, caller: try context.requireAccount())
    }

    func unregisterPushToken(_ request: Devices.UnregisterPushTokenRequest, context: ServerCallContext) async throws
        -> Devices.UnregisterPushTokenResponse {
        let caller = try context.requireAccount()
        let token = try PushPlatform.lookupToken(request.token)
        let removed = try await pool.withConnection { connection in
            try await store.delete(token, accountID: try caller.accountUUID(), app: caller.app, on: connection)
        }
        return Devices.UnregisterPushTokenResponse(removed: removed)
    }

    func listMyPushTokens(_ request: Devices.ListMyPushTokensRequest, context: ServerCallContext) async throws
        -> Devices.ListMyPushTokensResponse {
        let caller = try context.requireAccount()
        let tokens = try await pool.withConnection { connection in
            try await store.list(accountID: try caller.accountUUID(), app: caller.app, on: connection)
        }
        return Devices.ListMyPushTokensResponse(tokens: tokens.map(\.message))
    }

    private func register(_ registration: PushTokenRegistration, caller: AuthenticatedAccount) async throws -> Devices.PushToken {
        let accountID = try caller.accountUUID()
        return try await pool.withTransaction { connection in
            guard try await store.lockAccount(accountID, app: caller.app, on: connection) else {
                throw IdentityError.accountNotFound
            }
            let stored = try await store.upsert(registration, accountID: accountID, app: caller.app, on: connection)
            try await store.enforceLimits(after: stored, on: connection)
            return stored.message
        }
    }

    /// Replaces one of the caller's tokens by the one the OS rotated it to, keeping its
    /// platform, environment and device.
    private func refresh(_ request: Devices.RefreshPushTokenRequest, caller: AuthenticatedAccount) async throws -> Devices.PushToken {
        let accountID = try caller.accountUUID()
        let oldToken = try PushPlatform.lookupToken(request.oldToken)
        return try await pool.withTransaction { connection in
            guard try await store.lockAccount(accountID, app: caller.app, on: connection) else {
                throw IdentityError.accountNotFound
            }
            guard let old = try await store.findForUpdate(oldToken, accountID: accountID, app: caller.app, on: connection) else {
                throw DeviceError.pushTokenNotFound
            }
            let registration = try PushTokenRegistration(replacing: old, with: request.newToken, appVersion: request.appVersion)
            if registration.token != old.token {
                try await store.delete(id: old.id, accountID: accountID, on: connection)
            }
            let stored = try await store.upsert(registration, accountID: accountID, app: caller.app, on: connection)
            try await store.enforceLimits(after: stored, on: connection)
            return stored.message
        }
    }
}
