package import Postgres

extension ServiceContext {
    /// Runs `consumer` for the life of the process, exports its lag as
    /// `event_consumer_lag_seconds{consumer="<source>"}` and the events it skipped as
    /// `event_consumer_skipped_events{consumer}`, and fails `/readyz` (and the gRPC
    /// health status) with "consumer <source>: 75 s behind (bound 60 s)" while the lag is over
    /// `RV_EVENT_LAG_BOUND_SECONDS`.
    package func follow(_ consumer: EventConsumer) {
        let lag = consumer.lag
        addBackgroundJob("\(consumer.source) events") { await consumer.run() }
        metrics.addGaugeHook("event_consumer_lag_seconds", labels: [("consumer", consumer.source)],
                             help: "Seconds an event consumer is behind its producer (ConsumerLag)") { lag.seconds() }
        exportSkippedEvents(consumer.undecodable)
        guard let bound = configuration.eventLagBound else { return }
        let boundSeconds = Double(bound.components.seconds) + Double(bound.components.attoseconds) / 1e18
        addReadinessCheck("consumer \(consumer.source)") {
            let seconds = lag.seconds()
            if seconds > boundSeconds {
                throw ReadinessFailure("\(Self.formatted((seconds * 10).rounded(.up) / 10)) s behind (bound \(Self.formatted(boundSeconds)) s)")
            }
        }
    }

    /// The notifier of `channel`'s outbox (`Outbox.channel`), closed at shutdown, with how long
    /// its watchers are held back exported as `outbox_held_back_seconds{outbox}`.
    package func makeOutboxNotifier(pool: PostgresPool, channel: String) async throws -> OutboxNotifier {
        let notifier = try await OutboxNotifier(configuration: pool.configuration, channel: channel)
        onShutdown("\(channel) notifier") { notifier.close() }
        metrics.addGaugeHook("outbox_held_back_seconds", labels: [("outbox", channel)],
                             help: "How long committed events have waited for delivery behind a transaction still open") {
            [holdBack = notifier.holdBack] in holdBack.seconds
        }
        return notifier
    }

    /// Exports how many events `undecodable`'s follower skipped since start as
    /// `event_consumer_skipped_events{consumer="<source>"}`.
    package func exportSkippedEvents(_ undecodable: UndecodableEvents) {
        metrics.addGaugeHook("event_consumer_skipped_events", labels: [("consumer", undecodable.source)],
                             help: "Events skipped since start because their payload does not decode (logged as errors)") {
            Double(undecodable.count)
        }
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
