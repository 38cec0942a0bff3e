#if canImport(Glibc)
import Glibc
#endif
import Auth
import Contracts
import RPC
import Runtime

/// `production`: FirstDate's show (casting, episodes, consent, money) and The Unseen's points,
/// on 127.0.0.1:7104 by default (RV_PRODUCTION_PORT), schema `production` as role
/// rv_production (RV_PG_URL_PRODUCTION). Follows identity (RV_IDENTITY_ADDRESS, default
/// 127.0.0.1:7101) for signing keys and revocations; its own credential (RV_SERVICE_NAME,
/// RV_SERVICE_SECRET) must be one identity accepts. Its events (ApplicationSubmitted,
/// ApplicationStatusChanged, EpisodePublished) are served by WatchEvents to the services in
/// RV_SERVICE_CREDENTIALS, which also names who may award points. Follows messaging
/// (RV_MESSAGING_ADDRESS, optional) for The Unseen's encounter awards. Settings: `ProductionSettings`.
@main
struct ProductionMain {
    static func main() async {
        await ServiceMain.run(name: "production", defaultPort: 7104, onListening: { addresses in
            print("production listening on \(addresses.host):\(addresses.port)")
            fflush(nil)
        }) { context in
            let settings = try ProductionSettings.load(from: context.environment)
            let credential = try context.environment.serviceCredential()
            if credential == nil {
                context.logger.warning("\(EnvironmentReader.serviceNameVariable) is not set: identity's revocations and deletions cannot be followed")
            }
            let accepted = try context.environment.acceptedServiceCredentials()
            let pool = try await context.makePostgresPool(schema: "production", migrations: try ProductionMigrations.all())
            let outbox = try Outbox(schema: "production")
            let notifier = try await context.makeOutboxNotifier(pool: pool, channel: outbox.channel)
            let identity = RPCClient(host: settings.identityHost, port: settings.identityPort)
            context.onShutdown("identity client") { identity.close() }

            let server = ProductionServer(pool: pool, settings: settings, identity: identity, outbox: outbox,
                                          notifier: notifier, accepted: accepted, revocations: context.revocations)
            context.followRevocations(identity: identity, credential: credential)
            // An account's deletion removes its application, dates and points (identity's events).
            if credential != nil {
                let deletions = AccountDeletions()
                let accounts = try EventConsumer(source: AccountDeletions.source, schema: "production", pool: pool, client: identity,
                                                 types: AccountDeletions.eventTypes, credential: credential,
                                                 logger: context.logger) { event, connection in
                    try await deletions.apply(event, on: connection)
                }
                context.follow(accounts)
            }
            // Matches for dates come from discovery's events (RV_DISCOVERY_ADDRESS).
            if let address = context.environment[MatchProjection.addressVariable] {
                let (host, port) = try EnvironmentReader.hostAndPort(address, variable: MatchProjection.addressVariable)
                let discovery = RPCClient(host: host, port: port)
                context.onShutdown("discovery client") { discovery.close() }
                let matches = MatchProjection()
                let consumer = try EventConsumer(source: MatchProjection.source, schema: "production", pool: pool, client: discovery,
                                                 types: MatchProjection.eventTypes, credential: credential,
                                                 logger: context.logger) { event, connection in
                    try await matches.apply(event, on: connection)
                }
                context.follow(consumer)
            }
            // Encounter awards come from messaging's events (RV_MESSAGING_ADDRESS) into the points ledger.
            if let address = context.environment[EncounterAwards.addressVariable] {
                let (host, port) = try EnvironmentReader.hostAndPort(address, variable: EncounterAwards.addressVariable)
                let messaging = RPCClient(host: host, port: port)
                context.onShutdown("messaging client") { messaging.close() }
                let awards = EncounterAwards(pointsApps: settings.pointsApps)
                let consumer = try EventConsumer(source: EncounterAwards.source, schema: "production", pool: pool, client: messaging,
                                                 types: EncounterAwards.eventTypes, credential: credential,
                                                 logger: context.logger) { event, connection in
                    try await awards.apply(event, on: connection)
                }
                context.follow(consumer)
            }
            for interceptor in server.interceptors { context.addInterceptor(interceptor) }
            return server.services
        }
    }
}
