import Contracts

/// The APNs gateway a token belongs to, as stored (`identity.push_tokens.environment`).
enum PushEnvironment: String, Sendable, Hashable {
    case sandbox
    case production

    /// The environment a request names for `platform`: APNs needs SANDBOX or PRODUCTION; FCM
    /// has only production (UNSPECIFIED means it). INVALID_PUSH_ENVIRONMENT otherwise.
    init(_ environment: Devices.PushEnvironment, platform: PushPlatform) throws(DeviceError) {
        switch (platform, environment) {
        case (.apns, .sandbox): self = .sandbox
        case (.apns, .production), (.fcm, .production), (.fcm, .unspecified): self = .production
        case (.apns, _): throw .invalidEnvironment("an APNs token needs environment SANDBOX or PRODUCTION")
        case (.fcm, _): throw .invalidEnvironment("an FCM token has no environment other than PRODUCTION")
        }
    }

    var message: Devices.PushEnvironment {
        switch self {
        case .sandbox: .sandbox
        case .production: .production
        }
    }
}
