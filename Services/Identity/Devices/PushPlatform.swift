import Contracts

/// A push provider, as stored (`identity.push_tokens.platform`); each has its token format.
enum PushPlatform: String, Sendable, Hashable {
    case apns
    case fcm

    /// APNs device tokens in hex: 32 bytes today, longer allowed since Apple says the length
    /// may change.
    static let apnsTokenLength = 64...200
    /// FCM registration tokens are about 160 characters; the bound keeps the index small.
    static let fcmTokenLength = 32...1024

    /// The platform a request names; INVALID_PLATFORM for UNSPECIFIED or an unknown number.
    init(_ platform: Devices.PushPlatform) throws(DeviceError) {
        switch platform {
        case .apns: self = .apns
        case .fcm: self = .fcm
        default: throw .invalidPlatform
        }
    }

    var message: Devices.PushPlatform {
        switch self {
        case .apns: .apns
        case .fcm: .fcm
        }
    }

    /// The token as stored: APNs hex lowercased, FCM as given. INVALID_PUSH_TOKEN when it does
    /// not have this platform's format.
    func normalizedToken(_ token: String) throws(DeviceError) -> String {
        let bytes = Array(token.utf8)
        switch self {
        case .apns:
            guard Self.apnsTokenLength.contains(bytes.count), bytes.count % 2 == 0, bytes.allSatisfy(\.isHexDigit) else {
                throw .invalidPushToken(platform: rawValue, expected: "an even number of hexadecimal digits, 64 to 200")
            }
            return token.lowercased()
        case .fcm:
            guard Self.fcmTokenLength.contains(bytes.count), bytes.allSatisfy(\.isFCMTokenCharacter) else {
                throw .invalidPushToken(platform: rawValue, expected: "32 to 1024 letters, digits, '-', '_', ':' or '.'")
            }
            return token
        }
    }

    /// A token named to find a registered one (unregister, refresh, mark inactive): any
    /// platform's format, so only its length and characters are checked.
    static func lookupToken(_ token: String) throws(DeviceError) -> String {
        let bytes = Array(token.utf8)
        guard (1...fcmTokenLength.upperBound).contains(bytes.count), bytes.allSatisfy(\.isFCMTokenCharacter) else {
            throw .invalidPushToken(platform: "any", expected: "1 to 1024 letters, digits, '-', '_', ':' or '.'")
        }
        return token
    }
}

/// What a token wakes, as stored (`identity.push_tokens.kind`).
enum PushTokenKind: String, Sendable, Hashable {
    case alert
    case voip

    /// The kind a request names (UNSPECIFIED: alert); a VoIP token is APNs's only.
    init(_ kind: Devices.PushTokenKind, platform: PushPlatform) throws(DeviceError) {
        switch kind {
        case .voip:
            guard platform == .apns else { throw .voipNeedsAPNs }
            self = .voip
        default:
            self = .alert
        }
    }

    var message: Devices.PushTokenKind { self == .voip ? .voip : .alert }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }

    fileprivate var isFCMTokenCharacter: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || self == UInt8(ascii: "-") || self == UInt8(ascii: "_") || self == UInt8(ascii: ":") || self == UInt8(ascii: ".")
    }
}
