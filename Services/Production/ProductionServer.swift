import Auth
import Contracts
import Postgres
import RPC
import Runtime

/// Everything the production executable serves, assembled once: used by `ProductionMain` and by
/// tests that run the service in-process.
struct ProductionServer: Sendable {
    let services: [any RPCService]
    /// Service credentials on WatchEvents and Points.Award first, then access tokens on everything else.
    let interceptors: [any ServerInterceptor]

    init(pool: PostgresPool, settings: ProductionSettings, identity: RPCClient, outbox: Outbox, notifier: OutboxNotifier,
         accepted: ServiceCredentials, revocations: RevocationList?) {
        let events = EventStreamService(outbox: outbox, pool: pool, notifier: notifier)
        var internalMethods = EventStreamService.internalMethods
        internalMethods[PointsService.awardMethod] = .only(settings.pointsAwarders)
        let serviceInterceptor = ServiceAuthInterceptor(credentials: accepted, methods: internalMethods)
        // Any app's token: each handler refuses an app without a show or points itself, PERMISSION_DENIED
        // APP_NOT_SUPPORTED or POINTS_APP_NOT_SUPPORTED as the contract says (ProductionCaller, PointsService).
        let verifier = AccessTokenVerifier(configuration: .init(apps: nil),
                                           source: IdentitySigningKeySource(client: IdentityClient(client: identity)))
        let auth = AuthInterceptor(verifier: verifier, publicMethods: serviceInterceptor.guardedMethods, revocations: revocations)
        services = [
            CastingService(pool: pool, applications: ApplicationStore(outbox: outbox), settings: settings),
            EpisodesService(pool: pool, episodes: EpisodeStore(outbox: outbox), settings: settings),
            ConsentService(pool: pool, settings: settings),
            LedgerService(pool: pool, settings: settings),
            StudioService(pool: pool, settings: settings),
            DatesService(pool: pool, settings: settings),
            ContentService(pool: pool, settings: settings),
            PointsService(pool: pool, settings: settings),
            events,
        ]
        interceptors = [serviceInterceptor, auth]
    }
}
