#if canImport(Glibc)
import Glibc
#endif
import Auth
import Contracts
import RPC
import Runtime

/// `discovery`: feeds, swipes and matches, on 127.0.0.1:7102 by default (RV_DISCOVERY_PORT),
/// schema `discovery` as role rv_discovery (RV_PG_URL_DISCOVERY). Follows identity
/// (RV_IDENTITY_ADDRESS, default 127.0.0.1:7101) for signing keys, tiers, profiles, blocks and
/// revocations; its own credential (RV_SERVICE_NAME, RV_SERVICE_SECRET) must be one identity
/// accepts. Its events (MatchCreated, MatchEnded) are served by WatchEvents to the services in
/// RV_SERVICE_CREDENTIALS. Settings: `DiscoverySettings`.
@main
struct DiscoveryMain {
    static func main() async {
        await ServiceMain.run(name: "discovery", defaultPort: 7102, onListening: { addresses in
            print("discovery listening on \(addresses.host):\(addresses.port)")
            fflush(nil)
        }) { context in
            let settings = try DiscoverySettings.load(from: context.environment)
            if settings.clock.offsetSeconds != 0 {
                context.logger.warning("test clock: daily allowances counted \(settings.clock.offsetSeconds) s off the system clock")
            }
            let credential = try context.environment.serviceCredential()
            if credential == nil {
                context.logger.warning("\(EnvironmentReader.serviceNameVariable) is not set: identity's events cannot be followed")
            }
            let accepted = try context.environment.acceptedServiceCredentials()
            let pool = try await context.makePostgresPool(schema: "discovery", migrations: try DiscoveryMigrations.all())
            if try await !DiscoveryMigrations.hasAppLocationIndex(pool) {
                context.logger.warning("""
                    the feed's index by app and place (profiles_by_app_location) is missing: btree_gist was not installed \
                    when migration 20 ran, so every feed also reads the other apps' profiles nearby; README ("Discovery") \
                    gives the two statements that add it
                    """)
            }
            let outbox = try Outbox(schema: "discovery")
            let notifier = try await context.makeOutboxNotifier(pool: pool, channel: outbox.channel)
            let identity = RPCClient(host: settings.identityHost, port: settings.identityPort)
            context.onShutdown("identity client") { identity.close() }

            let server = DiscoveryServer(pool: pool, settings: settings, identity: identity, outbox: outbox,
                                         notifier: notifier, accepted: accepted, revocations: context.revocations,
                                         credential: credential,
                                         outbound: BlockingWorkPool(threads: 2, name: "instagram"))
            context.followRevocations(identity: identity, credential: credential)
            let projection = try EventConsumer(source: "identity", schema: "discovery", pool: pool, client: identity,
                                               types: ProfileProjection.eventTypes, credential: credential,
                                               logger: context.logger) { event, connection in
                try await server.projection.apply(event, on: connection)
            }
            context.follow(projection)
            for interceptor in server.interceptors { context.addInterceptor(interceptor) }
            return server.services
        }
    }
}
