public import ContractTypes

extension GatewayClient {
    /// The signed-in account's push tokens (`rendezvous.identity.v1.Devices`).
    public var devices: DevicesAPI { DevicesAPI(runner: runner) }
}

/// The Devices service as an app calls it: register the token the OS gives at every launch,
/// follow its rotations, remove it at sign-out. Every call needs the signed-in session.
/// (Push senders read tokens through DevicesInternal with a service credential; apps never do.)
public struct DevicesAPI: Sendable {
    let runner: CallRunner

    /// Every Devices method the client calls, with its retry and authentication rules.
    enum Methods {
        /// An upsert: registering the same token again leaves the same row (details updated,
        /// reactivated), so a repeat after a lost answer is harmless; retried when unreachable.
        static let registerPushToken = GatewayMethod("Devices/RegisterPushToken", .idempotentWrite, .session)
        /// A write: once it worked the old token is gone, and a repeat would fail
        /// `PUSH_TOKEN_NOT_FOUND` for a rotation that happened.
        static let refreshPushToken = GatewayMethod("Devices/RefreshPushToken", .write, .session)
        /// Idempotent by contract: a token already removed answers `removed = false`.
        static let unregisterPushToken = GatewayMethod("Devices/UnregisterPushToken", .idempotentWrite, .session)
        static let listMyPushTokens = GatewayMethod("Devices/ListMyPushTokens", .read, .session)
    }

    private var stub: DevicesClient { DevicesClient(client: runner.transport) }

    /// Registers this installation's push token, or refreshes it (call at every launch with
    /// the token the OS gives). A token another account of the app held moves to this one; the
    /// account's older token of the same `kind` on the same `deviceID` is deactivated. An iOS app
    /// taking video calls also registers its PushKit token with `kind: .voip`. Fails with INVALID_ARGUMENT
    /// `INVALID_PUSH_TOKEN` (details `platform`, `expected`), `INVALID_PLATFORM`,
    /// `INVALID_PUSH_ENVIRONMENT`, `INVALID_DEVICE_ID` or `INVALID_APP_VERSION`.
    public func registerPushToken(_ token: String, platform: Devices.PushPlatform,
                                  environment: Devices.PushEnvironment = .unspecified, deviceID: String,
                                  appVersion: String = "", kind: Devices.PushTokenKind = .alert,
                                  deadline: Duration? = nil) async throws(GatewayError) -> Devices.PushToken {
        let request = Devices.RegisterPushTokenRequest(token: token, platform: platform, environment: environment,
                                                       deviceID: deviceID, appVersion: appVersion, kind: kind)
        return try await runner.run(Methods.registerPushToken, deadline: deadline) { [stub] options in
            try await stub.registerPushToken(request, options: options)
        }
    }

    /// The OS rotated the token: `oldToken` is replaced by `newToken`, keeping its platform,
    /// environment and device. Fails with NOT_FOUND `PUSH_TOKEN_NOT_FOUND` when `oldToken` is
    /// not this account's; then register `newToken` instead.
    public func refreshPushToken(from oldToken: String, to newToken: String, appVersion: String = "",
                                 deadline: Duration? = nil) async throws(GatewayError) -> Devices.PushToken {
        let request = Devices.RefreshPushTokenRequest(oldToken: oldToken, newToken: newToken, appVersion: appVersion)
        return try await runner.run(Methods.refreshPushToken, deadline: deadline) { [stub] options in
            try await stub.refreshPushToken(request, options: options)
        }
    }

    /// Removes one of the account's tokens (at sign-out, or when the user turns pushes off);
    /// returns false when the account held no such token (unknown, already removed, or another
    /// account's, which is left alone). Call it before `signOut`: it needs the session.
    @discardableResult
    public func unregisterPushToken(_ token: String, deadline: Duration? = nil) async throws(GatewayError) -> Bool {
        let request = Devices.UnregisterPushTokenRequest(token: token)
        return try await runner.run(Methods.unregisterPushToken, deadline: deadline) { [stub] options in
            try await stub.unregisterPushToken(request, options: options).removed
        }
    }

    /// The account's tokens, active first, then the most recently seen first.
    public func listMyPushTokens(deadline: Duration? = nil) async throws(GatewayError) -> [Devices.PushToken] {
        try await runner.run(Methods.listMyPushTokens, deadline: deadline) { [stub] options in
            try await stub.listMyPushTokens(options: options).tokens
        }
    }
}
