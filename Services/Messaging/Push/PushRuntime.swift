import Auth
import Contracts
import CryptoCore
import Foundation
import Postgres
import RPC
import Runtime

/// Starts push on this instance: the planners (messaging's realtime outbox, identity's events
/// and, when `RV_PRODUCTION_ADDRESS` / `RV_MEDIA_ADDRESS` are set, production's and media's) and
/// the queue worker. Without the
/// APNs key settings push is off with a warning; a key that cannot be read stops start-up.
enum PushRuntime {
    static func start(context: ServiceContext, pool: PostgresPool, server: MessagingServer, notifier: OutboxNotifier,
                      identity: RPCClient, media: RPCClient?, credential: ServiceCredential?) throws {
        let settings = try PushSettings.load(from: context.environment)
        guard settings.enabled, let keyFile = settings.keyFile, let keyID = settings.keyID, let teamID = settings.teamID else {
            context.logger.warning("RV_APNS_KEY_FILE, RV_APNS_KEY_ID and RV_APNS_TEAM_ID are not all set: push is disabled")
            return
        }
        let keyPEM: [UInt8]
        do {
            keyPEM = Array(try Data(contentsOf: URL(fileURLWithPath: keyFile)))
        } catch {
            throw ConfigurationError(variable: "RV_APNS_KEY_FILE", message: "cannot be read")
        }
        let providerToken: APNsProviderToken
        do {
            providerToken = try APNsProviderToken(keyPEM: keyPEM, keyID: keyID, teamID: teamID,
                                                  refreshAfter: settings.tokenRefresh)
        } catch {
            throw ConfigurationError(variable: "RV_APNS_KEY_FILE", message: "is not a PKCS#8 P-256 key (.p8)")
        }
        let tls = try TLSContext.makeClient(trustRootsPEMFile: settings.trustRootsFile)
        let production = APNsClient(host: settings.host.host, port: settings.host.port, tls: tls)
        let sandbox = APNsClient(host: settings.sandboxHost.host, port: settings.sandboxHost.port, tls: tls)
        context.onShutdown("apns clients") {
            production.close()
            sandbox.close()
        }
        if settings.topics.isEmpty { context.logger.warning("RV_APNS_TOPICS names no app: no push can be sent") }
        let sender = PushSender(production: production, sandbox: sandbox, providerToken: providerToken,
                                devices: DevicesInternalClient(client: identity), credential: credential,
                                maxAttempts: settings.maxAttempts, backoff: settings.backoff, logger: context.logger)
        let planner = PushPlanner(maximumAge: settings.maximumAge)
        let follower = RealtimePushFollower(pool: pool, feed: server.feed, notifier: notifier, planner: planner,
                                            pollInterval: settings.pollInterval, logger: context.logger)
        context.addBackgroundJob("push planning") { await follower.run() }
        context.exportSkippedEvents(follower.undecodable)
        var sources: [(String, RPCClient, [String])] = [("identity", identity, PushPlanner.identityTypes)]
        if let text = context.environment["RV_PRODUCTION_ADDRESS"] {
            let (host, port) = try EnvironmentReader.hostAndPort(text, variable: "RV_PRODUCTION_ADDRESS")
            let client = RPCClient(host: host, port: port)
            context.onShutdown("production client") { client.close() }
            sources.append(("production", client, PushPlanner.productionTypes))
        }
        if let media { sources.append(("media", media, PushPlanner.mediaTypes)) }
        for (source, client, types) in sources {
            let consumer = try EventConsumer(source: "push-\(source)", schema: "messaging", pool: pool, client: client,
                                             types: types, credential: credential, logger: context.logger) { event, connection in
                try await planner.apply(event, source: source, on: connection)
            }
            context.follow(consumer)
        }
        let worker = PushWorker(pool: pool, sender: sender, settings: settings,
                                deliveries: PushDeliveryCounts(metrics: context.metrics), logger: context.logger)
        context.addBackgroundJob("push sending") { await worker.run() }
    }
}
