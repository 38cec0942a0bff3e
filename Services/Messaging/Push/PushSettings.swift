import Foundation
import Runtime

/// Push's settings, from the environment. Without a key file, key id and team id push is off:
/// messaging starts, logs a warning and sends nothing (preferences still work).
struct PushSettings: Sendable {
    /// APNs for production tokens (`RV_APNS_HOST`, host:port).
    var host = MessagingSettings.Address(host: "api.push.apple.com", port: 443)
    /// APNs for development builds' tokens (`RV_APNS_SANDBOX_HOST`, host:port).
    var sandboxHost = MessagingSettings.Address(host: "api.sandbox.push.apple.com", port: 443)
    /// The .p8 key (PKCS#8 EC P-256 PEM) from the Apple Developer portal (`RV_APNS_KEY_FILE`).
    var keyFile: String?
    /// Its key id (`RV_APNS_KEY_ID`) and the team's id (`RV_APNS_TEAM_ID`).
    var keyID: String?
    var teamID: String?
    /// Each app's bundle id, the `apns-topic` (`RV_APNS_TOPICS`, app:bundle,...). An app without
    /// one gets no pushes.
    var topics: [String: String] = [:]
    /// Roots to trust instead of the system's (`RV_APNS_TRUST_ROOTS`, a PEM file; for a local
    /// APNs stand-in).
    var trustRootsFile: String?
    /// How long one provider token is used (`RV_APNS_TOKEN_REFRESH`, seconds; default 50
    /// minutes). Apple refuses tokens older than an hour and updates more often than every
    /// 20 minutes, so keep it between 20 and 60 minutes outside tests.
    var tokenRefresh: Duration = .seconds(3_000)
    /// Sends per token on 429, 5xx or a broken connection (`RV_APNS_MAX_ATTEMPTS`, 1-10), waiting
    /// `backoff` (`RV_APNS_BACKOFF_MS`), then twice that, and so on.
    var maxAttempts = 5
    var backoff: Duration = .milliseconds(500)
    /// Jobs one instance sends at once (`RV_PUSH_CONCURRENCY`, 1-512).
    var concurrency = 64
    /// How often an idle worker looks for jobs (`RV_PUSH_POLL_INTERVAL_MS`).
    var pollInterval: Duration = .milliseconds(200)
    /// How long a leased job is another instance's before it may be taken again.
    var lease: Duration = .seconds(120)
    /// Events older than this when planned make no push (a restart after a long outage must
    /// not wake people about old news).
    var maximumAge: Duration = .seconds(600)

    var enabled: Bool { keyFile != nil && keyID != nil && teamID != nil }

    static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> PushSettings {
        var settings = PushSettings()
        if let text = environment["RV_APNS_HOST"] { settings.host = try MessagingSettings.Address(parsing: text, variable: "RV_APNS_HOST") }
        if let text = environment["RV_APNS_SANDBOX_HOST"] { settings.sandboxHost = try MessagingSettings.Address(parsing: text, variable: "RV_APNS_SANDBOX_HOST") }
        settings.keyFile = nonEmpty(environment["RV_APNS_KEY_FILE"])
        settings.keyID = nonEmpty(environment["RV_APNS_KEY_ID"])
        settings.teamID = nonEmpty(environment["RV_APNS_TEAM_ID"])
        settings.trustRootsFile = nonEmpty(environment["RV_APNS_TRUST_ROOTS"])
        if let text = environment["RV_APNS_TOPICS"] {
            for entry in text.split(separator: ",") {
                let parts = entry.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ConfigurationError(variable: "RV_APNS_TOPICS", message: "must be app:bundle-id,...")
                }
                settings.topics[parts[0].lowercased()] = parts[1]
            }
        }
        if let value = try environment.seconds("RV_APNS_TOKEN_REFRESH", range: 1...3_600) { settings.tokenRefresh = value }
        if let value = try environment.integer("RV_APNS_MAX_ATTEMPTS", range: 1...10) { settings.maxAttempts = value }
        if let value = try environment.integer("RV_APNS_BACKOFF_MS", range: 1...60_000) { settings.backoff = .milliseconds(value) }
        if let value = try environment.integer("RV_PUSH_CONCURRENCY", range: 1...512) { settings.concurrency = value }
        if let value = try environment.integer("RV_PUSH_POLL_INTERVAL_MS", range: 1...60_000) {
            settings.pollInterval = .milliseconds(value)
        }
        return settings
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
