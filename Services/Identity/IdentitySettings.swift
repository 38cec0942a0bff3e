import Auth
import CryptoCore

/// Identity's own settings (lifetimes, lock-out, keys), from `RV_IDENTITY_*` variables.
struct IdentitySettings: Sendable {
    /// The access token lifetime unless changed, seconds.
    static let defaultAccessTokenLifetime: Int64 = 15 * 60
    /// Access token lifetime, seconds.
    var accessTokenLifetime: Int64 = defaultAccessTokenLifetime
    /// Refresh token lifetime, seconds; each rotation starts a new one.
    var refreshTokenLifetime: Int64 = 30 * 24 * 3600
    /// How long one signing key signs, seconds.
    var keySigningPeriod: Int64 = 30 * 24 * 3600
    /// How long before it signs a successor key is published, seconds.
    var keyPublishAhead: Int64 = 2 * 24 * 3600
    /// How long verifiers may cache the key set, seconds.
    var keySetMaxAge: Int32 = 300
    /// AES-256 key sealing the signing keys in the database.
    var keyEncryptionKey: [UInt8]
    /// Failed sign-ins allowed within `failureWindow` before the account's sign-in locks.
    var maxFailedSignIns = 5
    /// Seconds.
    var failureWindow: Int64 = 15 * 60
    /// Seconds the sign-in stays locked.
    var lockoutDuration: Int64 = 15 * 60
    /// scrypt cost for new password hashes.
    var passwordParameters: PasswordHash.Parameters = .interactive
    var apps: AppPolicies = .standard
    /// Apple and Google public keys for ID tokens (`ProviderKeys`); audiences are per app.
    var providerKeys = ProviderKeys()
    /// Clock skew allowed on ID tokens' `exp` and `nbf`, seconds.
    var idTokenLeeway: Int64 = 60
    /// Phone one-time codes: lifetime, attempts, resend throttle.
    var phoneCodes = PhoneCodeSettings()
    /// Delivers phone one-time codes; the default writes them to the log (development only).
    var oneTimeCodeSender: any OneTimeCodeSender = LoggedOneTimeCodeSender.standard
    /// The services accepted on internal methods (RV_SERVICE_CREDENTIALS); none refuses them all.
    var serviceCredentials = ServiceCredentials()
    /// Push token limits and the services that may read push tokens.
    var devices = DeviceSettings()
    /// Group commit of anonymous sign-ins and of owners' profile updates (`GroupCommitQueue`,
    /// one each): batches stored at once (`RV_IDENTITY_WRITE_RUNNERS`, 1-64; each holds a pool
    /// connection while it runs) and writes a batch at most (`RV_IDENTITY_WRITE_BATCH`, 1-1000).
    var writeRunners = 2
    var writeBatch = 64
    /// Services that may match hashed contacts (`RV_IDENTITY_CONTACT_CALLERS`; default discovery).
    var contactCallers: Set<String> = ["discovery"]
    /// Roots (PEM) App Store signed transactions must chain to; nil: they are refused.
    /// `RV_IDENTITY_APPSTORE_ROOT_CERT_FILE`, see `AppStoreSettings`.
    var appStoreRootsPEM: [UInt8]?
    /// App Store environments whose transactions grant tiers (`RV_IDENTITY_APPSTORE_ENVIRONMENTS`).
    var appStoreEnvironments: Set<String> = ["Production"]

    init(keyEncryptionKey: [UInt8]) {
        self.keyEncryptionKey = keyEncryptionKey
    }
}
