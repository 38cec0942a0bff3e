package import Postgres

extension ServiceContext {
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

    /// Runs `consumer` for the life of the process (a background job named `name`) and exports
    /// its lag as `event_consumer_lag_seconds{source}`.
    package func addEventConsumer(_ name: String, _ consumer: EventConsumer) {
        metrics.addGaugeHook("event_consumer_lag_seconds", labels: [("source", consumer.source)],
                             help: "How far behind its producer's stream an event consumer is (0 while it waits for events)") {
            [lag = consumer.lag] in lag.seconds
        }
        addBackgroundJob(name) { await consumer.run() }
    }
}
