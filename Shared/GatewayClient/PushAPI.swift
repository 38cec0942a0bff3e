public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// The caller's push notification preferences (`rendezvous.messaging.v1.Push`).
    public var push: PushAPI { PushAPI(runner: runner) }
}

/// The Push service as an app calls it, as the signed-in account: which categories of push the
/// user receives and their quiet hours. Bad input is INVALID_ARGUMENT with
/// `error.pushReason` `.invalidPushCategory` or `.invalidQuietHours`.
public struct PushAPI: Sendable {
    let runner: CallRunner

    /// Every Push method the client calls, with its retry and authentication rules.
    enum Methods {
        static let getPreferences = GatewayMethod("Push/GetPushPreferences", .read, .session)
        /// Sets values: a repeat leaves the same preferences.
        static let setPreferences = GatewayMethod("Push/SetPushPreferences", .idempotentWrite, .session)
    }

    private var stub: PushClient { PushClient(client: runner.transport) }

    /// Every category with whether it is on, and the quiet hours.
    public func preferences(deadline: Duration? = nil) async throws(GatewayError) -> Push.PushPreferences {
        try await runner.run(Methods.getPreferences, deadline: deadline) { [stub] options in
            try await stub.getPushPreferences(.init(), options: options)
        }
    }

    /// Turns the given categories on or off (others keep theirs) and, when given, sets the quiet
    /// hours; returns the preferences after the change.
    @discardableResult
    public func setPreferences(_ categories: [Push.PushCategory: Bool], quietHours: Push.QuietHours? = nil,
                               deadline: Duration? = nil) async throws(GatewayError) -> Push.PushPreferences {
        let request = Push.SetPushPreferencesRequest(
            categories: categories.sorted { $0.key.rawValue < $1.key.rawValue }
                .map { Push.CategoryPreference(category: $0.key, enabled: $0.value) },
            quietHours: quietHours)
        return try await runner.run(Methods.setPreferences, deadline: deadline) { [stub] options in
            try await stub.setPushPreferences(request, options: options)
        }
    }
}

extension RPCError {
    /// The reason as push's contract types it (`.invalidPushCategory`, `.invalidQuietHours`).
    public var pushReason: Push.PushErrorReason? { reason(as: Push.PushErrorReason.self) }
}
