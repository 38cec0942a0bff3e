import Auth
import Contracts
import Postgres
import RPC
import Runtime

/// Everything the messaging executable serves, assembled once: used by `MessagingMain`.
struct MessagingServer: Sendable {
    let services: [any RPCService]
    /// Access tokens on every method.
    let interceptors: [any ServerInterceptor]
    /// Applies discovery's and identity's events to conversations.
    let conversations: ConversationEvents
    /// This instance's realtime subscribers.
    let hub: RealtimeHub
    let feed: RealtimeFeed
    /// Reads the realtime outbox for the hub.
    let realtimeStream: EventStreamService
    /// Encounters' rows and deadlines, for the sweep.
    let encounters: EncounterStore
    /// Calls' rows and deadlines, for the sweep.
    let calls: CallStore

    init(pool: PostgresPool, settings: MessagingSettings, identity: RPCClient, feed: RealtimeFeed, notifier: OutboxNotifier,
         hubStart: Int64, revocations: RevocationList?, events: Outbox, eventsNotifier: OutboxNotifier,
         accepted: ServiceCredentials, callWakeups: CallWakeups) {
        let tiers = TierCatalog(client: MembershipClient(client: identity))
        hub = RealtimeHub(position: hubStart, capacity: settings.streamBuffer)
        self.feed = feed
        realtimeStream = EventStreamService(outbox: feed.outbox, pool: pool, notifier: notifier)
        let verifier = AccessTokenVerifier(configuration: .init(apps: settings.apps),
                                           source: IdentitySigningKeySource(client: IdentityClient(client: identity)))
        // Messaging's own events (encounter awards) go to the services it accepts a credential
        // from (production's points ledger).
        let serviceInterceptor = ServiceAuthInterceptor(credentials: accepted, methods: EventStreamService.internalMethods)
        let auth = AuthInterceptor(verifier: verifier, publicMethods: serviceInterceptor.guardedMethods, revocations: revocations)
        encounters = EncounterStore(feed: feed, outbox: events, settings: settings.encounters)
        calls = CallStore(feed: feed, settings: settings.calls)
        let sends = GroupCommitQueue<MessageSend, MessageSend.Outcome>(maxBatch: settings.sendBatch, maxRunning: settings.sendRunners) { batch in
            try await pool.withConnection { try await MessageSendStore.send(batch, feed: feed, on: $0) }
        }
        services = [MessagingService(pool: pool, tiers: tiers, feed: feed, sends: sends, reads: BatchedReads(pool: pool)),
                    RealtimeService(pool: pool, tiers: tiers, feed: feed, hub: hub),
                    EncountersService(pool: pool, store: encounters, settings: settings.encounters),
                    EventStreamService(outbox: events, pool: pool, notifier: eventsNotifier), PushService(pool: pool),
                    CallsService(pool: pool, tiers: tiers, store: calls, wakeups: callWakeups)]
        interceptors = [serviceInterceptor, auth]
        conversations = ConversationEvents(feed: feed, generatorConfigured: settings.icebreakerGenerator != nil)
    }
}
