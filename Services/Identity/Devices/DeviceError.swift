import Contracts
import RPC

/// The push token registry's domain failures and the one place that decides their gRPC status
/// and reason (listed in proto-docs/rendezvous/identity/v1/devices.proto).
enum DeviceError: Error, Sendable, Equatable, RPCErrorConvertible {
    /// `platform` names the format expected ("apns", "fcm", or "any" for a lookup).
    case invalidPushToken(platform: String, expected: String)
    case invalidPlatform
    case voipNeedsAPNs
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
            RPCError(Identity.ErrorReason.invalidPushToken, message: "that is not a valid push token: expected \(expected)", details: ["platform": platform, "expected": expected])
        case .invalidPlatform:
            RPCError(Identity.ErrorReason.invalidPlatform, message: "platform must be APNS or FCM")
        case .voipNeedsAPNs:
            RPCError(Identity.ErrorReason.invalidPlatform, message: "a VOIP token must be an APNs token")
        case .invalidEnvironment(let message):
            RPCError(Identity.ErrorReason.invalidPushEnvironment, message: message)
        case .invalidDeviceID:
            RPCError(Identity.ErrorReason.invalidDeviceID, message: "device_id must be 1 to 128 visible ASCII characters")
        case .invalidAppVersion:
            RPCError(Identity.ErrorReason.invalidAppVersion, message: "app_version must be at most 64 printable ASCII characters")
        case .pushTokenNotFound:
            RPCError(Identity.ErrorReason.pushTokenNotFound, message: "this account has no such push token")
        case .invalidAccountID:
            RPCError(Identity.ErrorReason.invalidAccountID, message: "account_ids must be UUIDs")
        case .tooManyAccounts(let maximum):
            RPCError(Identity.ErrorReason.tooManyAccounts, message: "at most \(maximum) accounts per call",
                     details: ["maximum": String(maximum)])
        case .invalidInactiveReason:
            RPCError(Identity.ErrorReason.invalidInactiveReason, message: "reason must be UNREGISTERED, BAD_DEVICE_TOKEN or NOT_FOR_TOPIC")
        case .invalidTimestamp:
            RPCError(Identity.ErrorReason.invalidTimestamp, message: "invalid_since is not a valid time")
        }
    }
}
