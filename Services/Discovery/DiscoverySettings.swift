import Foundation
import Runtime

/// Discovery's own settings, from the environment (a bad value stops start-up naming it).
struct DiscoverySettings: Sendable {
    /// Apps whose filters beyond the default radius need a tier with advanced_filters
    /// (`RV_DISCOVERY_FILTER_GATED_APPS`, comma-separated; default ÉLITE). Elsewhere filters
    /// are every member's deal-breakers (FirstDate).
    var appsGatingFilters: Set<String> = ["elite"]
    /// Roles whose swipes are a personality quiz, per app: stored and summarised
    /// (GetTasteProfile), never matched (`RV_DISCOVERY_QUIZ_ROLES`, `app:role` pairs separated
    /// by commas; default FirstDate's viewers).
    var quizRoles: [String: Set<String>] = ["firstdate": ["viewer"]]
    /// Apps whose access tokens discovery accepts (`RV_DISCOVERY_APPS`).
    var apps: Set<String> = ["elite", "firstdate", "swivo", "unseen", "momento"]
    /// Where identity answers (`RV_IDENTITY_ADDRESS`, host:port): signing keys, tiers, events.
    var identityHost = "127.0.0.1"
    var identityPort = 7101
    /// What a session's invite code is appended to for its share link
    /// (`RV_DISCOVERY_INVITE_LINK_BASE`; default Swivo's universal link).
    var inviteLinkBase = "https://swivo.app/join/"
    /// The clock daily allowances are counted by: the system's, unless a test shifts it by
    /// `RV_DISCOVERY_CLOCK_OFFSET_SECONDS`, which is refused unless `RV_DISCOVERY_TEST_CLOCK=1`
    /// also says this is a test (a deployment that sets the offset by mistake does not start).
    var clock = AllowanceClock()
    /// Where ImportInstagram asks Instagram, and its time limit (`InstagramGraph.Settings`).
    var instagram = InstagramGraph.Settings()
    /// Group commit of swipes (`GroupCommitQueue`): batches stored at once
    /// (`RV_DISCOVERY_SWIPE_RUNNERS`, 1-64; each holds a pool connection while it runs) and swipes
    /// a batch at most (`RV_DISCOVERY_SWIPE_BATCH`, 1-1000).
    var swipeRunners = 2
    var swipeBatch = 64

    static let gatedAppsVariable = "RV_DISCOVERY_FILTER_GATED_APPS"
    static let appsVariable = "RV_DISCOVERY_APPS"
    static let identityAddressVariable = "RV_IDENTITY_ADDRESS"
    static let inviteLinkBaseVariable = "RV_DISCOVERY_INVITE_LINK_BASE"
    static let quizRolesVariable = "RV_DISCOVERY_QUIZ_ROLES"
    static let clockOffsetVariable = "RV_DISCOVERY_CLOCK_OFFSET_SECONDS"
    static let testClockVariable = "RV_DISCOVERY_TEST_CLOCK"
    static let swipeRunnersVariable = "RV_DISCOVERY_SWIPE_RUNNERS"
    static let swipeBatchVariable = "RV_DISCOVERY_SWIPE_BATCH"

    static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> DiscoverySettings {
        var settings = DiscoverySettings()
        if let text = environment[gatedAppsVariable] { settings.appsGatingFilters = EnvironmentReader.names(text) }
        if let text = environment[appsVariable] {
            settings.apps = EnvironmentReader.names(text)
            guard !settings.apps.isEmpty else { throw ConfigurationError(variable: appsVariable, message: "names no app") }
        }
        if let text = environment[quizRolesVariable] {
            var roles: [String: Set<String>] = [:]
            for pair in EnvironmentReader.names(text) {
                let parts = pair.split(separator: ":")
                guard parts.count == 2 else {
                    throw ConfigurationError(variable: quizRolesVariable, message: "must be app:role pairs, e.g. firstdate:viewer")
                }
                roles[String(parts[0]), default: []].insert(String(parts[1]))
            }
            settings.quizRoles = roles
        }
        if let base = environment[inviteLinkBaseVariable] {
            guard base.contains("://") else {
                throw ConfigurationError(variable: inviteLinkBaseVariable, message: "must be a URL prefix such as https://example.com/join/")
            }
            settings.inviteLinkBase = base
        }
        settings.instagram = try InstagramGraph.Settings.load(from: environment)
        if let runners = try environment.integer(swipeRunnersVariable, range: 1...64) { settings.swipeRunners = runners }
        if let batch = try environment.integer(swipeBatchVariable, range: 1...1000) { settings.swipeBatch = batch }
        if let text = environment[clockOffsetVariable] {
            guard environment[testClockVariable] == "1" else {
                throw ConfigurationError(variable: clockOffsetVariable, message: "is for tests only (needs \(testClockVariable)=1)")
            }
            guard let seconds = Int64(text), abs(seconds) <= 366 * 86_400 else {
                throw ConfigurationError(variable: clockOffsetVariable, message: "must be whole seconds within a year")
            }
            settings.clock.offsetSeconds = seconds
        }
        if let address = environment[identityAddressVariable] {
            (settings.identityHost, settings.identityPort) = try EnvironmentReader.hostAndPort(address, variable: identityAddressVariable)
        }
        return settings
    }

    /// Whether `role`'s swipes in `app` are quiz answers.
    func isQuiz(app: String, role: String) -> Bool { quizRoles[app]?.contains(role) == true }
}
