#if canImport(Glibc)
import Glibc
#endif
import Auth
import Contracts
import RPC
import Runtime

/// `messaging`: conversations, messages, read markers and each user's realtime stream, on
/// 127.0.0.1:7103 by default (RV_MESSAGING_PORT), schema `messaging` as role rv_messaging
/// (RV_PG_URL_MESSAGING). Follows identity (RV_IDENTITY_ADDRESS, default 127.0.0.1:7101) for
/// signing keys, tiers, blocks, deletions and revocations, and discovery (RV_DISCOVERY_ADDRESS,
/// default 127.0.0.1:7102) for matches, and media (RV_MEDIA_ADDRESS, optional) for Momento's
/// reveals; its credential (RV_SERVICE_NAME, RV_SERVICE_SECRET) must
/// be one both accept. Instances fan realtime events out to one another through the realtime
/// outbox and LISTEN/NOTIFY. The Unseen's encounters keep their deadlines in rows that every
/// instance sweeps, and so do video calls (whose signals instances relay through Postgres,
/// woken by LISTEN/NOTIFY). Its own events (EncounterAwardEarned) are served by WatchEvents to the
/// services in RV_SERVICE_CREDENTIALS (production). Settings: `MessagingSettings`.
@main
struct MessagingMain {
    static func main() async {
        await ServiceMain.run(name: "messaging", defaultPort: 7103, onListening: { addresses in
            print("messaging listening on \(addresses.host):\(addresses.port)")
            fflush(nil)
        }) { context in
            let settings = try MessagingSettings.load(from: context.environment)
            let credential = try context.environment.serviceCredential()
            if credential == nil {
                context.logger.warning("\(EnvironmentReader.serviceNameVariable) is not set: matches and blocks cannot be followed")
            }
            let accepted = try context.environment.acceptedServiceCredentials()
            let pool = try await context.makePostgresPool(schema: "messaging", migrations: try MessagingMigrations.all())
            let events = try Outbox(schema: "messaging")
            let eventsNotifier = try await context.makeOutboxNotifier(pool: pool, channel: events.channel)
            let feed = RealtimeFeed(outbox: try RealtimeFeed.outbox())
            let notifier = try await context.makeOutboxNotifier(pool: pool, channel: feed.outbox.channel)
            let callWakeups = try await CallWakeups(configuration: pool.configuration)
            context.onShutdown("call wake-ups") { callWakeups.close() }
            let identity = RPCClient(host: settings.identity.host, port: settings.identity.port)
            context.onShutdown("identity client") { identity.close() }
            let discovery = RPCClient(host: settings.discovery.host, port: settings.discovery.port)
            context.onShutdown("discovery client") { discovery.close() }

            let server = MessagingServer(pool: pool, settings: settings, identity: identity, feed: feed, notifier: notifier,
                                         hubStart: try await feed.startCursor(pool: pool), revocations: context.revocations,
                                         events: events, eventsNotifier: eventsNotifier, accepted: accepted,
                                         callWakeups: callWakeups)
            context.onShutdown("realtime streams") { server.hub.close() }
            context.followRevocations(identity: identity, credential: credential)
            context.addBackgroundJob("realtime fan-out") { await server.feed.follow(into: server.hub, stream: server.realtimeStream) }
            context.addBackgroundJob("realtime pruning") {
                await feed.pruneRegularly(every: settings.pruneInterval, olderThan: settings.realtimeRetention, pool: pool)
            }
            context.addBackgroundJob("encounter deadlines") {
                await server.encounters.sweepRegularly(every: settings.encounters.sweepInterval, pool: pool)
            }
            context.addBackgroundJob("call deadlines") {
                await server.calls.sweepRegularly(every: settings.calls.sweepInterval, pool: pool)
            }
            if let generator = settings.icebreakerGenerator {
                let http = BlockingWorkPool(threads: 2, name: "icebreakers")
                let icebreakers = IcebreakerGenerator(settings: generator, pool: pool, http: http, logger: context.logger)
                context.addBackgroundJob("icebreaker generator") { await icebreakers.run() }
            }
            var sources = [("discovery", discovery, ConversationEvents.discoveryTypes),
                           ("identity", identity, ConversationEvents.identityTypes)]
            let media = settings.media.map { RPCClient(host: $0.host, port: $0.port) }
            if let media {
                context.onShutdown("media client") { media.close() }
                sources.append(("media", media, ConversationEvents.mediaTypes))
            }
            for (source, client, types) in sources {
                let consumer = try EventConsumer(source: source, schema: "messaging", pool: pool, client: client, types: types,
                                                 credential: credential, logger: context.logger) { event, connection in
                    try await server.conversations.apply(event, on: connection)
                }
                context.follow(consumer)
            }
            try PushRuntime.start(context: context, pool: pool, server: server, notifier: notifier, identity: identity,
                                  media: media, credential: credential)
            for interceptor in server.interceptors { context.addInterceptor(interceptor) }
            return server.services
        }
    }
}
