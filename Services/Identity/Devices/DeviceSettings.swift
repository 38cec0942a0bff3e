import Foundation

/// Limits of the push token registry and who may read it.
struct DeviceSettings: Sendable {
    /// Active tokens an account may hold; registering more deactivates the least recently seen.
    var maxActiveTokensPerAccount = 20
    /// Inactive tokens kept per account (so the app can see why a device went quiet); older ones
    /// are deleted.
    var maxInactiveTokensPerAccount = 20
    /// Accounts one `ListActivePushTokens` call may name.
    var maxAccountsPerLookup = 500
    /// Services allowed on `DevicesInternal` (RV_IDENTITY_PUSH_TOKEN_CALLERS): the push senders.
    var pushTokenCallers: Set<String> = ["messaging"]

    /// `RV_IDENTITY_PUSH_TOKEN_CALLERS`: service names separated by commas.
    static let pushTokenCallersVariable = "RV_IDENTITY_PUSH_TOKEN_CALLERS"

    /// The names in a comma-separated list, spaces ignored.
    static func callers(parsing text: String) -> Set<String> {
        Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }
}
