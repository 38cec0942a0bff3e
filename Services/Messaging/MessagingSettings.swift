import Foundation
import Runtime

/// Messaging's own settings, from the environment (a bad value stops start-up naming it).
struct MessagingSettings: Sendable {
    /// Apps whose access tokens messaging accepts (`RV_MESSAGING_APPS`).
    var apps: Set<String> = ["elite", "firstdate", "swivo", "unseen", "momento"]
    /// Where identity answers (`RV_IDENTITY_ADDRESS`, host:port): signing keys, tiers, events.
    var identity = Address(host: "127.0.0.1", port: 7101)
    /// Where discovery answers (`RV_DISCOVERY_ADDRESS`, host:port): MatchCreated and MatchEnded.
    var discovery = Address(host: "127.0.0.1", port: 7102)
    /// Where media answers (`RV_MEDIA_ADDRESS`, host:port; optional): Momento's EventRevealed,
    /// for the members' realtime streams and pushes. Unset: reveals are neither streamed nor pushed.
    var media: Address?
    /// Events a realtime subscriber may have waiting before it is cut off as too slow
    /// (`RV_MESSAGING_STREAM_BUFFER`, 1-100000).
    var streamBuffer = 256
    /// Group commit of sends (`GroupCommitQueue`): batches stored at once
    /// (`RV_MESSAGING_SEND_RUNNERS`, 1-64; each holds a pool connection while it runs) and sends
    /// a batch at most (`RV_MESSAGING_SEND_BATCH`, 1-1000). One batch at a time: the next one
    /// gathers while it commits, and batches do not contend with each other in Postgres
    /// (compose/SCALING.md §2 has the measurements).
    var sendRunners = 1
    var sendBatch = 128
    /// How long realtime events stay resumable (`RV_MESSAGING_REALTIME_RETENTION`, seconds;
    /// default 7 days), and how often older ones are pruned (`RV_MESSAGING_PRUNE_INTERVAL`,
    /// seconds; default 1 hour).
    var realtimeRetention: Duration = .seconds(7 * 86_400)
    var pruneInterval: Duration = .seconds(3_600)
    /// The Unseen's encounters (`EncounterSettings`, RV_ENCOUNTER_*).
    var encounters = EncounterSettings()
    /// Video calls' ring timeout, grace and limits (`CallSettings`, RV_CALL_*).
    var calls = CallSettings()
    /// The icebreaker generator's endpoint (`IcebreakerGenerator.Settings`); nil: the pool alone.
    var icebreakerGenerator: IcebreakerGenerator.Settings?

    struct Address: Sendable {
        var host: String
        var port: Int

        init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// A `host:port` setting; anything else stops start-up naming `variable`.
        init(parsing text: String, variable: String) throws(ConfigurationError) {
            (host, port) = try EnvironmentReader.hostAndPort(text, variable: variable)
        }
    }

    static let appsVariable = "RV_MESSAGING_APPS"
    static let identityAddressVariable = "RV_IDENTITY_ADDRESS"
    static let discoveryAddressVariable = "RV_DISCOVERY_ADDRESS"
    static let mediaAddressVariable = "RV_MEDIA_ADDRESS"
    static let streamBufferVariable = "RV_MESSAGING_STREAM_BUFFER"
    static let sendRunnersVariable = "RV_MESSAGING_SEND_RUNNERS"
    static let sendBatchVariable = "RV_MESSAGING_SEND_BATCH"
    static let retentionVariable = "RV_MESSAGING_REALTIME_RETENTION"
    static let pruneIntervalVariable = "RV_MESSAGING_PRUNE_INTERVAL"

    static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> MessagingSettings {
        var settings = MessagingSettings()
        if let text = environment[appsVariable] {
            settings.apps = EnvironmentReader.names(text)
            guard !settings.apps.isEmpty else { throw ConfigurationError(variable: appsVariable, message: "names no app") }
        }
        if let text = environment[identityAddressVariable] { settings.identity = try Address(parsing: text, variable: identityAddressVariable) }
        if let text = environment[discoveryAddressVariable] { settings.discovery = try Address(parsing: text, variable: discoveryAddressVariable) }
        if let text = environment[mediaAddressVariable] { settings.media = try Address(parsing: text, variable: mediaAddressVariable) }
        if let text = environment[streamBufferVariable] {
            guard let size = Int(text), (1...100_000).contains(size) else {
                throw ConfigurationError(variable: streamBufferVariable, message: "must be a number from 1 to 100000")
            }
            settings.streamBuffer = size
        }
        if let text = environment[sendRunnersVariable] { settings.sendRunners = try number(text, 1...64, sendRunnersVariable) }
        if let text = environment[sendBatchVariable] { settings.sendBatch = try number(text, 1...1000, sendBatchVariable) }
        if let text = environment[retentionVariable] { settings.realtimeRetention = try seconds(text, retentionVariable) }
        if let text = environment[pruneIntervalVariable] { settings.pruneInterval = try seconds(text, pruneIntervalVariable) }
        settings.encounters = try EncounterSettings.load(from: environment)
        settings.calls = try CallSettings.load(from: environment)
        settings.icebreakerGenerator = try IcebreakerGenerator.Settings.load(from: environment)
        return settings
    }

    private static func number(_ text: String, _ range: ClosedRange<Int>,
                               _ variable: String) throws(ConfigurationError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(variable: variable, message: "must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    private static func seconds(_ text: String, _ variable: String) throws(ConfigurationError) -> Duration {
        guard let value = Double(text), value > 0, value <= 365 * 86_400 else {
            throw ConfigurationError(variable: variable, message: "must be a number of seconds above 0")
        }
        return .milliseconds(Int64(value * 1000))
    }
}
