import Foundation
import Runtime

/// The Unseen's encounter rules that a deployment may change (tests shorten the durations);
/// the defaults are the product's (encounters.proto).
struct EncounterSettings: Sendable {
    /// Apps whose members have encounters (`RV_ENCOUNTER_APPS`).
    var apps: Set<String> = ["unseen"]
    /// Time since the container started before a Convergence may be proposed
    /// (`RV_ENCOUNTER_MEANINGFUL_SECONDS`, default 150).
    var meaningful: Duration = .seconds(150)
    /// Messages each side must have sent before a Convergence (`RV_ENCOUNTER_MIN_MESSAGES`, default 3).
    var minimumMessages: Int32 = 3
    /// The invitee's time to answer a Convergence (`RV_ENCOUNTER_ACCEPT_SECONDS`, default 30).
    var accept: Duration = .seconds(30)
    /// The window for both handshake codes once both arrived (`RV_ENCOUNTER_HANDSHAKE_SECONDS`, default 120).
    var handshake: Duration = .seconds(120)
    /// The in-person timer (`RV_ENCOUNTER_IN_PERSON_SECONDS`, default 300).
    var inPerson: Duration = .seconds(300)
    /// From the timer's end until resonance scores are taken (`RV_ENCOUNTER_COOLDOWN_SECONDS`, default 300).
    var cooldown: Duration = .seconds(300)
    /// How often each instance sweeps for passed deadlines (`RV_ENCOUNTER_SWEEP_SECONDS`, default 1).
    var sweepInterval: Duration = .seconds(1)
    /// The lowest resonance score, on both sides, that earns the multiplier.
    static let resonanceThreshold: Int16 = 80

    static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> EncounterSettings {
        var settings = EncounterSettings()
        if let text = environment["RV_ENCOUNTER_APPS"] {
            settings.apps = EnvironmentReader.names(text)
        }
        let durations: [(String, WritableKeyPath<EncounterSettings, Duration>)] = [
            ("RV_ENCOUNTER_MEANINGFUL_SECONDS", \.meaningful), ("RV_ENCOUNTER_ACCEPT_SECONDS", \.accept),
            ("RV_ENCOUNTER_HANDSHAKE_SECONDS", \.handshake), ("RV_ENCOUNTER_IN_PERSON_SECONDS", \.inPerson),
            ("RV_ENCOUNTER_COOLDOWN_SECONDS", \.cooldown), ("RV_ENCOUNTER_SWEEP_SECONDS", \.sweepInterval),
        ]
        for (variable, path) in durations {
            guard let text = environment[variable] else { continue }
            guard let value = Double(text), value > 0, value <= 86_400 else {
                throw ConfigurationError(variable: variable, message: "must be a number of seconds above 0, at most 86400")
            }
            settings[keyPath: path] = .milliseconds(Int64(value * 1000))
        }
        if let text = environment["RV_ENCOUNTER_MIN_MESSAGES"] {
            guard let value = Int32(text), (1...1000).contains(value) else {
                throw ConfigurationError(variable: "RV_ENCOUNTER_MIN_MESSAGES", message: "must be a number from 1 to 1000")
            }
            settings.minimumMessages = value
        }
        return settings
    }
}

extension Duration {
    /// Whole microseconds, for deadlines kept as Unix microseconds.
    var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}
