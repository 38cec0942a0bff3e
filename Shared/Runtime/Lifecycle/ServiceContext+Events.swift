extension ServiceContext {
    /// Runs `consumer` for the life of the process, exports its lag as
    /// `event_consumer_lag_seconds{consumer="<source>"}`, and fails `/readyz` (and the gRPC
    /// health status) with "consumer <source>: 75 s behind (bound 60 s)" while the lag is over
    /// `RV_EVENT_LAG_BOUND_SECONDS`.
    package func follow(_ consumer: EventConsumer) {
        let lag = consumer.lag
        addBackgroundJob("\(consumer.source) events") { await consumer.run() }
        metrics.addGaugeHook("event_consumer_lag_seconds", labels: [("consumer", consumer.source)],
                             help: "Seconds an event consumer is behind its producer (ConsumerLag)") { lag.seconds() }
        guard let bound = configuration.eventLagBound else { return }
        let boundSeconds = Double(bound.components.seconds) + Double(bound.components.attoseconds) / 1e18
        addReadinessCheck("consumer \(consumer.source)") {
            let seconds = lag.seconds()
            if seconds > boundSeconds {
                throw ReadinessFailure("\(Self.formatted((seconds * 10).rounded(.up) / 10)) s behind (bound \(Self.formatted(boundSeconds)) s)")
            }
        }
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
