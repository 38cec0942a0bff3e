extension ServiceContext {
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
