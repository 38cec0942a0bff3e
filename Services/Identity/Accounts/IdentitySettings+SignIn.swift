import Foundation
import Logging
import Runtime

extension IdentitySettings {
    /// Reads the sign-in settings from the environment and logs what deployment should know:
    ///
    /// - `RV_IDENTITY_APPLE_JWKS` / `RV_IDENTITY_APPLE_JWKS_FILE`, and the same for `GOOGLE`:
    ///   the providers' ID token keys (`ProviderKeys`).
    /// - `RV_IDENTITY_<APP>_APPLE_AUDIENCES`, `RV_IDENTITY_<APP>_GOOGLE_AUDIENCES`: comma-separated
    ///   bundle or client ids an app accepts (default `com.rendezvous.<app>`); `<APP>` is the app id
    ///   upper-cased, other characters than letters and digits as `_`.
    /// - `RV_IDENTITY_PHONE_CODE_LIFETIME`, `_RESEND_INTERVAL` (seconds), `_MAX_ATTEMPTS`,
    ///   `_MAX_SENDS_PER_HOUR`.
    ///
    /// Codes are delivered by the logging sender through `logger` (no SMS gateway is reachable
    /// from here); a warning says so when an app offers phone sign-in.
    mutating func configureSignIn(from environment: EnvironmentReader, logger: Logger) throws {
        try loadSignIn(from: environment)
        oneTimeCodeSender = LoggedOneTimeCodeSender(logger: logger)

        let offered = Set(try apps.appIDs.flatMap { try apps.policy(for: $0).signInMethods })
        for provider in SignInProvider.allCases where offered.contains(provider.method) && providerKeys[provider] == nil {
            logger.warning("\(provider.environmentPrefix)_JWKS(_FILE) is not set: \(provider.rawValue) sign-in is refused",
                           metadata: ["reason": "PROVIDER_NOT_CONFIGURED"])
        }
        if offered.contains(.phone) {
            logger.warning("phone one-time codes are written to the log, not sent by SMS: development only")
        }
    }

    /// The variables `configureSignIn` reads, without the logging.
    mutating func loadSignIn(from environment: EnvironmentReader) throws {
        providerKeys = try ProviderKeys.load(from: environment)
        apps = AppPolicies(try apps.appIDs.sorted().map { id in
            var policy = try apps.policy(for: id)
            let prefix = "RV_IDENTITY_" + String(id.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
            if let list = Self.list(environment[prefix + "_APPLE_AUDIENCES"]) { policy.appleAudiences = list }
            if let list = Self.list(environment[prefix + "_GOOGLE_AUDIENCES"]) { policy.googleAudiences = list }
            return policy
        })
        if let seconds = try environment.integer("RV_IDENTITY_PHONE_CODE_LIFETIME", range: 2...3600) {
            phoneCodes.lifetime = Int64(seconds)
        }
        if let seconds = try environment.integer("RV_IDENTITY_PHONE_CODE_RESEND_INTERVAL", range: 0...3600) {
            phoneCodes.resendInterval = Int64(seconds)
        }
        if let count = try environment.integer("RV_IDENTITY_PHONE_CODE_MAX_ATTEMPTS", range: 1...10) {
            phoneCodes.maxAttempts = count
        }
        if let count = try environment.integer("RV_IDENTITY_PHONE_CODE_MAX_SENDS_PER_HOUR", range: 1...100) {
            phoneCodes.maxSendsPerHour = count
        }
        if let count = try environment.integer("RV_IDENTITY_WRITE_RUNNERS", range: 1...64) { writeRunners = count }
        if let count = try environment.integer("RV_IDENTITY_WRITE_BATCH", range: 1...1000) { writeBatch = count }
    }

    /// The non-empty, trimmed items of a comma-separated list; nil when there are none.
    private static func list(_ text: String?) -> Set<String>? {
        let items = (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return items.isEmpty ? nil : Set(items)
    }
}
