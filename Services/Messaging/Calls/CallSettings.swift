import Runtime

/// Call signaling's durations and limits (calls.proto); tests shorten the durations.
struct CallSettings: Sendable {
    /// How long a call rings before it is missed (`RV_CALL_RING_SECONDS`, default 40).
    var ring: Duration = .seconds(40)
    /// How long a side whose stream dropped may take to re-attach (`RV_CALL_GRACE_SECONDS`,
    /// default 10). An attached stream refreshes its presence three times per grace.
    var grace: Duration = .seconds(10)
    /// How often each instance sweeps for overdue calls (`RV_CALL_SWEEP_SECONDS`, default 1).
    var sweepInterval: Duration = .seconds(1)
    /// Signals one call may carry, both sides together (`RV_CALL_MAX_SIGNALS`, default 500).
    var maxSignals: Int32 = 500

    /// The largest SDP, in bytes of UTF-8.
    static let maxSDPBytes = 64 * 1024
    /// The largest ICE candidate line, in bytes of UTF-8.
    static let maxCandidateBytes = 1024
    /// The largest sdp_mid and username fragment, in bytes of UTF-8.
    static let maxTagBytes = 256

    /// How often an attached stream refreshes its side's presence.
    var heartbeat: Duration { grace / 3 }

    static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> CallSettings {
        var settings = CallSettings()
        let durations: [(String, WritableKeyPath<CallSettings, Duration>)] = [
            ("RV_CALL_RING_SECONDS", \.ring), ("RV_CALL_GRACE_SECONDS", \.grace), ("RV_CALL_SWEEP_SECONDS", \.sweepInterval),
        ]
        for (variable, path) in durations {
            guard let text = environment[variable] else { continue }
            guard let value = Double(text), value >= 0.05, value <= 3_600 else {
                throw ConfigurationError(variable: variable, message: "must be a number of seconds from 0.05 to 3600")
            }
            settings[keyPath: path] = .milliseconds(Int64(value * 1000))
        }
        if let text = environment["RV_CALL_MAX_SIGNALS"] {
            guard let value = Int32(text), (1...100_000).contains(value) else {
                throw ConfigurationError(variable: "RV_CALL_MAX_SIGNALS", message: "must be a number from 1 to 100000")
            }
            settings.maxSignals = value
        }
        return settings
    }
}
