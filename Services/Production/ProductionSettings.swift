import Foundation
import Runtime

/// Production's own settings, from the environment (a bad value stops start-up naming it).
struct ProductionSettings: Sendable {
    /// Apps that run a show (`RV_PRODUCTION_APPS`, comma-separated; default FirstDate).
    var showApps: Set<String> = ["firstdate"]
    /// Apps whose members earn points (`RV_POINTS_APPS`; default The Unseen).
    var pointsApps: Set<String> = ["unseen"]
    /// Roles that produce the show: every production method is theirs (`RV_PRODUCTION_PRODUCER_ROLES`).
    var producerRoles: Set<String> = ["host", "admin"]
    /// Services whose credential may award points (`RV_POINTS_AWARDERS`; default messaging,
    /// where encounters happen).
    var pointsAwarders: Set<String> = ["messaging"]
    /// Where identity answers (`RV_IDENTITY_ADDRESS`, host:port): signing keys and revocations.
    var identityHost = "127.0.0.1"
    var identityPort = 7101

    static let showAppsVariable = "RV_PRODUCTION_APPS"
    static let pointsAppsVariable = "RV_POINTS_APPS"
    static let producerRolesVariable = "RV_PRODUCTION_PRODUCER_ROLES"
    static let awardersVariable = "RV_POINTS_AWARDERS"
    static let identityAddressVariable = "RV_IDENTITY_ADDRESS"

    /// Apps production serves at all (one must, or start-up stops).
    var apps: Set<String> { showApps.union(pointsApps) }

    static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> ProductionSettings {
        var settings = ProductionSettings()
        if let text = environment[showAppsVariable] { settings.showApps = EnvironmentReader.names(text) }
        if let text = environment[pointsAppsVariable] { settings.pointsApps = EnvironmentReader.names(text) }
        guard !settings.apps.isEmpty else {
            throw ConfigurationError(variable: showAppsVariable, message: "no app runs a show or has points")
        }
        if let text = environment[producerRolesVariable] {
            settings.producerRoles = EnvironmentReader.names(text)
            guard !settings.producerRoles.isEmpty else {
                throw ConfigurationError(variable: producerRolesVariable, message: "names no role")
            }
        }
        if let text = environment[awardersVariable] { settings.pointsAwarders = EnvironmentReader.names(text) }
        if let address = environment[identityAddressVariable] {
            (settings.identityHost, settings.identityPort) = try EnvironmentReader.hostAndPort(address, variable: identityAddressVariable)
        }
        return settings
    }
}
