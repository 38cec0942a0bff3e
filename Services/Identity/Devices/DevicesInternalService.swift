import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// `rendezvous.identity.v1.DevicesInternal`: push tokens for the services that send pushes.
/// Internal: callable only with a service credential of `DeviceSettings.pushTokenCallers`
/// (`internalMethods`, guarded by the `ServiceAuthInterceptor`), never with a user's token.
struct DevicesInternalService: DevicesInternalProvider {
    let pool: PostgresPool
    let settings: DeviceSettings
    let apps: AppPolicies

    private var store: PushTokenStore { PushTokenStore(settings: settings) }

    /// Every method of the service, each open to `callers` only.
    static func internalMethods(callers: Set<String>) -> [String: ServiceAccess] {
        Dictionary(uniqueKeysWithValues: ["ListActivePushTokens", "MarkPushTokenInactive"].map {
            ("/\(DevicesInternalClient.serviceName)/\($0)", ServiceAccess.only(callers))
        })
    }

    func listActivePushTokens(_ request: Devices.ListActivePushTokensRequest, context: ServerCallContext) async throws
        -> Devices.ListActivePushTokensResponse {
        // The interceptor checked the credential; refusing here too keeps the method closed
        // on a server assembled without it.
        _ = try context.requireService()
        return try await listActive(request)
    }

    func markPushTokenInactive(_ request: Devices.MarkPushTokenInactiveRequest, context: ServerCallContext) async throws
        -> Devices.MarkPushTokenInactiveResponse {
        _ = try context.requireService()
        return try await markInactive(request)
    }

    private func listActive(_ request: Devices.ListActivePushTokensRequest) async throws -> Devices.ListActivePushTokensResponse {
        let app = try apps.policy(for: request.app).id
        guard request.accountIDs.count <= settings.maxAccountsPerLookup else {
            throw DeviceError.tooManyAccounts(maximum: settings.maxAccountsPerLookup)
        }
        var accountIDs: [UUID] = []
        for text in request.accountIDs {
            guard let id = UUID(uuidString: text) else { throw DeviceError.invalidAccountID }
            accountIDs.append(id)
        }
        guard !accountIDs.isEmpty else { return Devices.ListActivePushTokensResponse() }
        let tokens = try await pool.withConnection { connection in
            try await store.listActive(app: app, accountIDs: Array(Set(accountIDs)), on: connection)
        }
        return Devices.ListActivePushTokensResponse(tokens: tokens.map(\.message))
    }

    private func markInactive(_ request: Devices.MarkPushTokenInactiveRequest) async throws -> Devices.MarkPushTokenInactiveResponse {
        let app = try apps.policy(for: request.app).id
        let token = try PushPlatform.lookupToken(request.token)
        let reason = try PushTokenInactiveReason(reportedBySender: request.reason)
        let invalidSince = try request.invalidSince.map(Self.date)
        let deactivated = try await pool.withConnection { connection in
            try await store.deactivate(token, app: app, reason: reason, invalidSince: invalidSince, on: connection)
        }
        return Devices.MarkPushTokenInactiveResponse(deactivated: deactivated)
    }

    /// A provider's timestamp as a date: a valid google.protobuf.Timestamp (`Timestamp.isValid`).
    private static func date(_ timestamp: Timestamp) throws(DeviceError) -> Date {
        guard timestamp.isValid else { throw .invalidTimestamp }
        return Date(timeIntervalSince1970: Double(timestamp.seconds) + Double(timestamp.nanos) / 1_000_000_000)
    }
}
