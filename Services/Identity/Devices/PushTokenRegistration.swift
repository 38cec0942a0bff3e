import Contracts

/// A checked registration: what `RegisterPushToken` (or a refresh) stores for the caller.
struct PushTokenRegistration: Sendable, Equatable {
    static let deviceIDLength = 1...128
    static let maximumAppVersionLength = 64

    /// As stored (`PushPlatform.normalizedToken`).
    var token: String
    var platform: PushPlatform
    var environment: PushEnvironment
    var deviceID: String
    /// Empty when not given; a stored version is then kept.
    var appVersion: String
    var kind: PushTokenKind

    /// Checks every field of the request; the first bad one throws its INVALID_ARGUMENT reason.
    init(_ request: Devices.RegisterPushTokenRequest) throws(DeviceError) {
        platform = try PushPlatform(request.platform)
        token = try platform.normalizedToken(request.token)
        environment = try PushEnvironment(request.environment, platform: platform)
        deviceID = try Self.checkedDeviceID(request.deviceID)
        appVersion = try Self.checkedAppVersion(request.appVersion)
        kind = try PushTokenKind(request.kind, platform: platform)
    }

    /// `old`'s registration with `newToken` (checked against `old`'s platform), for a refresh.
    init(replacing old: StoredPushToken, with newToken: String, appVersion: String) throws(DeviceError) {
        platform = old.platform
        token = try old.platform.normalizedToken(newToken)
        environment = old.environment
        deviceID = old.deviceID
        self.appVersion = try Self.checkedAppVersion(appVersion)
        kind = old.kind
    }

    static func checkedDeviceID(_ deviceID: String) throws(DeviceError) -> String {
        let bytes = deviceID.utf8
        guard deviceIDLength.contains(bytes.count), bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidDeviceID
        }
        return deviceID
    }

    static func checkedAppVersion(_ appVersion: String) throws(DeviceError) -> String {
        let bytes = appVersion.utf8
        guard bytes.count <= maximumAppVersionLength, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw .invalidAppVersion
        }
        return appVersion
    }
}
