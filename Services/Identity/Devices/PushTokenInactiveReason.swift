import Contracts

/// Why a token is inactive, as stored (`identity.push_tokens.inactive_reason`).
enum PushTokenInactiveReason: String, Sendable, Hashable {
    case unregistered
    case badDeviceToken = "bad_device_token"
    case notForTopic = "not_for_topic"
    case replaced
    case tooManyDevices = "too_many_devices"

    /// A reason a push sender may report (`MarkPushTokenInactive`); the others are Identity's
    /// own. INVALID_INACTIVE_REASON otherwise.
    init(reportedBySender reason: Devices.PushTokenInactiveReason) throws(DeviceError) {
        switch reason {
        case .unregistered: self = .unregistered
        case .badDeviceToken: self = .badDeviceToken
        case .notForTopic: self = .notForTopic
        default: throw .invalidInactiveReason
        }
    }

    var message: Devices.PushTokenInactiveReason {
        switch self {
        case .unregistered: .unregistered
        case .badDeviceToken: .badDeviceToken
        case .notForTopic: .notForTopic
        case .replaced: .replaced
        case .tooManyDevices: .tooManyDevices
        }
    }
}
