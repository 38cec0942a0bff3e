import Foundation
import Runtime

/// Media's own settings, from the environment (a bad value stops start-up naming it).
struct MediaSettings: Sendable {
    /// Apps whose access tokens media accepts (`RV_MEDIA_APPS`).
    var apps: Set<String> = ["elite", "firstdate", "swivo", "unseen", "momento"]
    /// Where identity answers (`RV_IDENTITY_ADDRESS`, host:port): signing keys, events.
    var identityHost = "127.0.0.1"
    var identityPort = 7101
    /// The blob folder of the local filesystem backend (`RV_MEDIA_STORAGE_DIR`, default `.data/media`);
    /// with S3, the staging folder of unfinished uploads.
    var storageDirectory = ".data/media"
    /// The S3-compatible bucket blobs live in when `RV_MEDIA_STORAGE=s3` (nil: the local backend).
    var s3: S3Settings?
    /// The HMAC-SHA256 key of download URLs (`RV_MEDIA_URL_SECRET`, at least 32 bytes). Without it
    /// a random key is made at start, so URLs stop working when the process restarts (and are not
    /// shared between instances): development only.
    var urlSecret: [UInt8]?
    /// Roles that may download private kinds (`RV_MEDIA_PRIVATE_READER_ROLES`; default host, admin).
    var privateReaderRoles: Set<String> = ["host", "admin"]

    /// Profile photo limits per app (`RV_MEDIA_PHOTO_LIMITS`, `app:min-max` pairs separated by
    /// commas); apps not named get `defaultPhotoLimits`. The minimum applies once onboarding is complete.
    var photoLimits: [String: PhotoLimits] = ["elite": PhotoLimits(minimum: 0, maximum: 6),
                                              "firstdate": PhotoLimits(minimum: 1, maximum: 9)]
    static let defaultPhotoLimits = PhotoLimits(minimum: 0, maximum: 9)
    /// What a Momento join code and event id are appended to for the QR code's deep link
    /// (`RV_MEDIA_JOIN_LINK_BASE`).
    var joinLinkBase = "momento://join/"
    /// How often the reveal job looks for due events (`RV_MEDIA_REVEAL_INTERVAL_MS`, 10-60000).
    var revealInterval: Duration = .seconds(1)
    /// How often expired unfinished uploads are removed (`RV_MEDIA_SWEEP_INTERVAL_MS`, 10-3600000).
    var sweepInterval: Duration = .seconds(60)
    /// Photos rendered at once on this instance, each on its own thread (`RV_MEDIA_RENDITION_THREADS`, 1-16).
    var renditionThreads = 2
    /// How often the rendition job looks for photos to render (`RV_MEDIA_RENDITION_INTERVAL_MS`, 10-60000).
    var renditionInterval: Duration = .milliseconds(250)
    static let renditionThreadsVariable = "RV_MEDIA_RENDITION_THREADS"
    static let renditionIntervalVariable = "RV_MEDIA_RENDITION_INTERVAL_MS"
    static let sweepIntervalVariable = "RV_MEDIA_SWEEP_INTERVAL_MS"
    static let joinLinkBaseVariable = "RV_MEDIA_JOIN_LINK_BASE"
    static let revealIntervalVariable = "RV_MEDIA_REVEAL_INTERVAL_MS"

    static let appsVariable = "RV_MEDIA_APPS"
    static let photoLimitsVariable = "RV_MEDIA_PHOTO_LIMITS"
    static let identityAddressVariable = "RV_IDENTITY_ADDRESS"
    static let storageDirectoryVariable = "RV_MEDIA_STORAGE_DIR"
    static let urlSecretVariable = "RV_MEDIA_URL_SECRET"
    static let privateReaderRolesVariable = "RV_MEDIA_PRIVATE_READER_ROLES"

    static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> MediaSettings {
        var settings = MediaSettings()
        if let text = environment[appsVariable] {
            settings.apps = EnvironmentReader.names(text)
            guard !settings.apps.isEmpty else { throw ConfigurationError(variable: appsVariable, message: "names no app") }
        }
        if let text = environment[photoLimitsVariable] {
            var limits: [String: PhotoLimits] = [:]
            for pair in EnvironmentReader.names(text) {
                let parts = pair.split(separator: ":")
                let bounds = parts.count == 2 ? parts[1].split(separator: "-").compactMap { Int32($0) } : []
                guard bounds.count == 2, bounds[0] >= 0, bounds[1] >= max(1, bounds[0]), bounds[1] <= 50 else {
                    throw ConfigurationError(variable: photoLimitsVariable, message: "must be app:min-max pairs, e.g. elite:0-6 (max 1-50)")
                }
                limits[String(parts[0])] = PhotoLimits(minimum: bounds[0], maximum: bounds[1])
            }
            settings.photoLimits = limits
        }
        if let base = environment[joinLinkBaseVariable] {
            guard base.contains("://") else {
                throw ConfigurationError(variable: joinLinkBaseVariable, message: "must be a URL prefix such as momento://join/")
            }
            settings.joinLinkBase = base
        }
        if let text = environment[revealIntervalVariable] {
            guard let milliseconds = Int(text), (10...60_000).contains(milliseconds) else {
                throw ConfigurationError(variable: revealIntervalVariable, message: "must be 10-60000 milliseconds")
            }
            settings.revealInterval = .milliseconds(milliseconds)
        }
        if let text = environment[sweepIntervalVariable] {
            guard let milliseconds = Int(text), (10...3_600_000).contains(milliseconds) else {
                throw ConfigurationError(variable: sweepIntervalVariable, message: "must be 10-3600000 milliseconds")
            }
            settings.sweepInterval = .milliseconds(milliseconds)
        }
        if let text = environment[renditionThreadsVariable] {
            guard let threads = Int(text), (1...16).contains(threads) else {
                throw ConfigurationError(variable: renditionThreadsVariable, message: "must be 1-16")
            }
            settings.renditionThreads = threads
        }
        if let text = environment[renditionIntervalVariable] {
            guard let milliseconds = Int(text), (10...60_000).contains(milliseconds) else {
                throw ConfigurationError(variable: renditionIntervalVariable, message: "must be 10-60000 milliseconds")
            }
            settings.renditionInterval = .milliseconds(milliseconds)
        }
        if let text = environment[privateReaderRolesVariable] { settings.privateReaderRoles = EnvironmentReader.names(text) }
        if let directory = environment[storageDirectoryVariable] {
            guard !directory.isEmpty else { throw ConfigurationError(variable: storageDirectoryVariable, message: "is empty") }
            settings.storageDirectory = directory
        }
        if let secret = environment[urlSecretVariable] {
            guard secret.utf8.count >= 32 else {
                throw ConfigurationError(variable: urlSecretVariable, message: "must be at least 32 bytes")
            }
            settings.urlSecret = Array(secret.utf8)
        }
        settings.s3 = try S3Settings.load(from: environment)
        if let address = environment[identityAddressVariable] {
            (settings.identityHost, settings.identityPort) = try EnvironmentReader.hostAndPort(address, variable: identityAddressVariable)
        }
        return settings
    }

    /// The photo limits of `app`.
    func photoLimits(app: String) -> PhotoLimits { photoLimits[app] ?? Self.defaultPhotoLimits }
}

/// How many profile photos an account of an app keeps: at most `maximum`, and at least
/// `minimum` once its onboarding is complete.
struct PhotoLimits: Sendable, Equatable {
    var minimum: Int32
    var maximum: Int32
}
