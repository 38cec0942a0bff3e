import RPC

/// The push token registry's domain failures and the one place that decides their gRPC status
/// and reason (listed in proto-docs/rendezvous/identity/v1/devices.proto).
enum DeviceError: Error, Sendable, Equatable, RPCErrorConvertible {
    /// `platform` names the format expected ("apns", "fcm", or "any" for a lookup).
    case invalidPushToken(platform: String, expected: String)
    case invalidPlatform
    case invalidEnvironment(String)
    case invalidDeviceID
    case invalidAppVersion
    case pushTokenNotFound
    case invalidAccountID
    case tooManyAccounts(maximum: Int)
    case invalidInactiveReason
    case invalidTimestamp

    var rpcError: RPCError {
        switch self {
        case .invalidPushToken(let platform, let expected):
            RPCError(code: .invalidArgument, message: "that is not a valid push token: expected \(expected)",
                     reason: "INVALID_PUSH_TOKEN", details: ["platform": platform, "expected": expected])
        case .invalidPlatform:
            RPCError(code: .invalidArgument, message: "platform must be APNS or FCM", reason: "INVALID_PLATFORM")
        case .invalidEnvironment(let message):
            RPCError(code: .invalidArgument, message: message, reason: "INVALID_PUSH_ENVIRONMENT")
        case .invalidDeviceID:
            RPCError(code: .invalidArgument, message: "device_id must be 1 to 128 visible ASCII characters",
                     reason: "INVALID_DEVICE_ID")
        case .invalidAppVersion:
            RPCError(code: .invalidArgument, message: "app_version must be at most 64 printable ASCII characters",
                     reason: "INVALID_APP_VERSION")
        case .pushTokenNotFound:
            RPCError(code: .notFound, message: "this account has no such push token", reason: "PUSH_TOKEN_NOT_FOUND")
        case .invalidAccountID:
            RPCError(code: .invalidArgument, message: "account_ids must be UUIDs", reason: "INVALID_ACCOUNT_ID")
        case .tooManyAccounts(let maximum):
            RPCError(code: .invalidArgument, message: "at most \(maximum) accounts per call", reason: "TOO_MANY_ACCOUNTS",
                     details: ["maximum": String(maximum)])
        case .invalidInactiveReason:
            RPCError(code: .invalidArgument, message: "reason must be UNREGISTERED, BAD_DEVICE_TOKEN or NOT_FOR_TOPIC",
                     reason: "INVALID_INACTIVE_REASON")
        case .invalidTimestamp:
            RPCError(code: .invalidArgument, message: "invalid_since is not a valid time", reason: "INVALID_TIMESTAMP")
        }
    }
}
