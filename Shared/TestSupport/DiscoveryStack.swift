/// The real `identity` and `discovery` executables on the local Postgres, wired as `make run`
/// wires them (discovery follows identity's events with a credential identity accepts), and
/// optionally any number of `messaging` instances (following both) and the nginx edge in front
/// of them all (to the first messaging instance), and production following messaging's events
/// (encounter awards into the points ledger), for tests of any side.
package final class DiscoveryStack: Sendable {
    package static let discoverySecret = "discovery-tests-discovery-secret-0123456789"
    package static let messagingSecret = "discovery-tests-messaging-secret-0123456789"
    package static let productionSecret = "discovery-tests-production-secret-0123456789"

    package let identity: EndToEndServiceProcess
    package let discovery: EndToEndServiceProcess
    /// Instances of one messaging deployment (one schema), in start order.
    package let messaging: [EndToEndServiceProcess]
    /// Routes `/rendezvous.identity.`, `/rendezvous.discovery.` and `/rendezvous.messaging.` (and
    /// `/rendezvous.production.` with production), as compose's edge does.
    package let edge: NginxEdge?
    /// When started `withProduction`: production, following the first messaging instance's events.
    package let production: EndToEndServiceProcess?

    private init(identity: EndToEndServiceProcess, discovery: EndToEndServiceProcess, messaging: [EndToEndServiceProcess],
                 edge: NginxEdge?, production: EndToEndServiceProcess? = nil) {
        self.identity = identity
        self.discovery = discovery
        self.messaging = messaging
        self.edge = edge
        self.production = production
    }

    package static func postgresURL(role: String) -> String {
        let configuration = TestDatabase.configuration(role: role)
        return "postgresql://\(configuration.user):\(configuration.password ?? "")@\(configuration.host):\(configuration.port)/\(configuration.database)"
    }

    /// Starts both (discovery with `discoveryEnvironment` added), `messagingInstances` messaging
    /// instances (with `messagingEnvironment` added)
    /// and the edge when `withEdge`, production after them when `withProduction` (needs a
    /// messaging instance); fails with the db.sh hint when Postgres is down.
    package static func start(withEdge: Bool = false, discoveryEnvironment: [String: String] = [:], messagingInstances: Int = 0,
                              messagingEnvironment: [String: String] = [:],
                              withProduction: Bool = false) async throws -> DiscoveryStack {
        try await TestDatabase.makePool(TestDatabase.configuration(role: "discovery", poolSize: 1)).close()
        let identity = try await startIdentity(credentials: "discovery=\(discoverySecret),messaging=\(messagingSecret),production=\(productionSecret)")
        do {
            let discovery = try await startDiscovery(identityPort: identity.port, environment: discoveryEnvironment)
            var messaging: [EndToEndServiceProcess] = []
            do {
                for _ in 0..<messagingInstances {
                    var environment = [
                        "RV_MESSAGING_PORT": "0", "RV_MESSAGING_ADMIN_PORT": "0", "RV_PG_URL_MESSAGING": postgresURL(role: "messaging"),
                        "RV_IDENTITY_ADDRESS": "127.0.0.1:\(identity.port)", "RV_DISCOVERY_ADDRESS": "127.0.0.1:\(discovery.port)",
                        "RV_LOG_LEVEL": "warning", "RV_SERVICE_NAME": "messaging", "RV_SERVICE_SECRET": messagingSecret,
                        "RV_SERVICE_CREDENTIALS": "production=\(productionSecret)",
                    ]
                    environment.merge(messagingEnvironment) { _, given in given }
                    messaging.append(try await EndToEndServiceProcess.start("messaging", environment: environment))
                }
                var routes = ["/rendezvous.identity.": identity.port, "/rendezvous.discovery.": discovery.port]
                if let first = messaging.first { routes["/rendezvous.messaging."] = first.port }
                var production: EndToEndServiceProcess?
                if withProduction, let first = messaging.first {
                    production = try await ProductionStack.startProduction(
                        identityPort: identity.port, secret: productionSecret, credentials: "messaging=\(messagingSecret)",
                        environment: ["RV_MESSAGING_ADDRESS": "127.0.0.1:\(first.port)"])
                }
                if let production { routes["/rendezvous.production."] = production.port }
                do {
                    let edge = withEdge ? try await NginxEdge.start(routes: routes) : nil
                    return DiscoveryStack(identity: identity, discovery: discovery, messaging: messaging, edge: edge,
                                          production: production)
                } catch {
                    await production?.stop()
                    throw error
                }
            } catch {
                for instance in messaging { await instance.stop() }
                await discovery.stop()
                throw error
            }
        } catch {
            await identity.stop()
            throw error
        }
    }

    /// Another `discovery` executable on this stack's identity and database: a second instance,
    /// or (with the `port` of one that was killed) its restart, or another release's (`executable`).
    /// `environment` adds to the settings.
    package func startDiscovery(port: Int = 0, executable: String? = nil,
                                environment: [String: String] = [:]) async throws -> EndToEndServiceProcess {
        try await Self.startDiscovery(identityPort: identity.port, port: port, executable: executable, environment: environment)
    }

    private static func startDiscovery(identityPort: Int, port: Int = 0, executable: String? = nil,
                                       environment extra: [String: String] = [:]) async throws -> EndToEndServiceProcess {
        try await EndToEndServiceProcess.start("discovery", executable: executable, environment: [
            "RV_DISCOVERY_PORT": String(port), "RV_DISCOVERY_ADMIN_PORT": "0", "RV_PG_URL_DISCOVERY": postgresURL(role: "discovery"),
            "RV_IDENTITY_ADDRESS": "127.0.0.1:\(identityPort)", "RV_LOG_LEVEL": "warning",
            "RV_SERVICE_NAME": "discovery", "RV_SERVICE_SECRET": discoverySecret,
            "RV_SERVICE_CREDENTIALS": "messaging=\(messagingSecret)",
        ].merging(extra) { _, given in given })
    }

    /// The `identity` executable on an ephemeral port, accepting the service credentials
    /// `credentials` (`name=secret,...`) on its internal methods; shared by the stacks of other services.
    /// `environment` adds to (or overrides) those settings.
    package static func startIdentity(credentials: String, environment extra: [String: String] = [:]) async throws
        -> EndToEndServiceProcess {
        try await EndToEndServiceProcess.start("identity", environment: [
            "RV_IDENTITY_PORT": "0", "RV_IDENTITY_ADMIN_PORT": "0", "RV_PG_URL_IDENTITY": postgresURL(role: "identity"),
            "RV_LOG_LEVEL": "warning", "RV_SERVICE_CREDENTIALS": credentials,
        ].merging(extra) { _, given in given })
    }

    /// Both processes' logs, for a failure's report.
    package var logs: String {
        (production.map { "production log:\n\($0.log)\n" } ?? "")
            + messaging.enumerated().map { "messaging \($0.offset) log:\n\($0.element.log)\n" }.joined()
            + "discovery log:\n\(discovery.log)\nidentity log:\n\(identity.log)"
    }

    package func stop() async {
        edge?.stop()
        await production?.stop()
        for instance in messaging { await instance.stop() }
        await discovery.stop()
        await identity.stop()
    }
}
