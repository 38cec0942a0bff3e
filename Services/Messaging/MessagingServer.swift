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

    init(pool: PostgresPool, settings: MessagingSettings, identity: RPCClient, feed: RealtimeFeed, notifier: OutboxNotifier,
         hubStart: Int64, revocations: RevocationList?) {
        let tiers = TierCatalog(client: MembershipClient(client: identity))
        hub = RealtimeHub(position: hubStart, capacity: settings.streamBuffer)
        self.feed = feed
        realtimeStream = EventStreamService(outbox: feed.outbox, pool: pool, notifier: notifier)
        let verifier = AccessTokenVerifier(configuration: .init(apps: settings.apps),
                                           source: IdentitySigningKeySource(client: IdentityClient(client: identity)))
        let auth = AuthInterceptor(verifier: verifier, publicMethods: [], revocations: revocations)
        services = [MessagingService(pool: pool, tiers: tiers, feed: feed),
                    RealtimeService(pool: pool, tiers: tiers, feed: feed, hub: hub), PushService(pool: pool)]
        interceptors = [auth]
        conversations = ConversationEvents(feed: feed)
    }
}
