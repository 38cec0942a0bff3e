import Auth
import Contracts
import Postgres
import RPC
import Runtime

/// Everything the discovery executable serves, assembled once: used by `DiscoveryMain` and by
/// tests that run the service in-process.
struct DiscoveryServer: Sendable {
    let services: [any RPCService]
    /// Service credentials on WatchEvents first, then access tokens on everything else.
    let interceptors: [any ServerInterceptor]
    /// Applies identity's events to the profile projection.
    let projection: ProfileProjection

    init(pool: PostgresPool, settings: DiscoverySettings, identity: RPCClient, outbox: Outbox, notifier: OutboxNotifier,
         accepted: ServiceCredentials, revocations: RevocationList?, credential: ServiceCredential?, outbound: BlockingWorkPool) {
        let matches = MatchStore(outbox: outbox)
        let discovery = DiscoveryService(pool: pool, tiers: TierCatalog(client: MembershipClient(client: identity)),
                                         matches: matches, settings: settings,
                                         contacts: ContactMatcher(client: ContactsInternalClient(client: identity),
                                                                  credential: credential),
                                         instagram: InstagramGraph(settings: settings.instagram, http: outbound),
                                         feeds: FeedPages(pool: pool, windows: FeedWindowCache(), reads: BatchedReads(pool: pool)),
                                         swipes: GroupCommitQueue(maxBatch: settings.swipeBatch, maxRunning: settings.swipeRunners) { batch in
                                             try await pool.withConnection { try await SwipeStore.swipe(batch, on: $0) }
                                         })
        let events = EventStreamService(outbox: outbox, pool: pool, notifier: notifier)
        let sessions = GroupSessionsService(pool: pool, store: SessionStore(outbox: outbox, inviteLinkBase: settings.inviteLinkBase),
                                            events: events)
        let serviceInterceptor = ServiceAuthInterceptor(credentials: accepted, methods: EventStreamService.internalMethods)
        let verifier = AccessTokenVerifier(configuration: .init(apps: settings.apps),
                                           source: IdentitySigningKeySource(client: IdentityClient(client: identity)))
        let auth = AuthInterceptor(verifier: verifier, publicMethods: serviceInterceptor.guardedMethods, revocations: revocations)
        services = [discovery, sessions, events]
        interceptors = [serviceInterceptor, auth]
        projection = ProfileProjection(matches: matches)
    }
}
