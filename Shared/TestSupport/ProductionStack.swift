/// The real `identity` and `production` executables on the local Postgres, wired as `make run`
/// wires them (production follows identity's keys and revocations with a credential identity
/// accepts; messaging's credential may award points), and optionally the nginx edge in front.
package final class ProductionStack: Sendable {
    package static let productionSecret = "production-tests-production-secret-0123456789"
    /// The credential tests present as messaging, the service that awards points.
    package static let messagingSecret = "production-tests-messaging-secret-0123456789"
    /// Identity's own credential, with which it follows production's events.
    package static let identitySecret = "production-tests-identity-secret-0123456789"

    package let identity: EndToEndServiceProcess
    package let production: EndToEndServiceProcess
    /// When started with discovery: production follows its matches (for dates).
    package let discovery: EndToEndServiceProcess?
    /// Routes `/rendezvous.identity.` and `/rendezvous.production.`, as compose's edge does.
    package let edge: NginxEdge?

    private init(identity: EndToEndServiceProcess, production: EndToEndServiceProcess, discovery: EndToEndServiceProcess?,
                 edge: NginxEdge?) {
        self.identity = identity
        self.production = production
        self.discovery = discovery
        self.edge = edge
    }

    /// Starts both (discovery too when `withDiscovery`, the edge when `withEdge`); `showApps` are
    /// the apps that run a show.
    package static func start(withEdge: Bool = false, withDiscovery: Bool = false,
                              showApps: String = "firstdate,elite") async throws -> ProductionStack {
        try await TestDatabase.makePool(TestDatabase.configuration(role: "production", poolSize: 1)).close()
        // Each follows the other (production: identity's keys and revocations; identity:
        // production's submitted applications), so production's port is chosen first.
        let productionPort = try LocalPort.free()
        let identity = try await DiscoveryStack.startIdentity(
            credentials: "production=\(productionSecret),discovery=\(DiscoveryStack.discoverySecret)",
            environment: ["RV_SERVICE_NAME": "identity", "RV_SERVICE_SECRET": identitySecret,
                          "RV_PRODUCTION_ADDRESS": "127.0.0.1:\(productionPort)"])
        var discovery: EndToEndServiceProcess?
        do {
            if withDiscovery {
                discovery = try await EndToEndServiceProcess.start("discovery", environment: [
                    "RV_DISCOVERY_PORT": "0", "RV_DISCOVERY_ADMIN_PORT": "0",
                    "RV_PG_URL_DISCOVERY": DiscoveryStack.postgresURL(role: "discovery"),
                    "RV_IDENTITY_ADDRESS": "127.0.0.1:\(identity.port)", "RV_LOG_LEVEL": "warning",
                    "RV_SERVICE_NAME": "discovery", "RV_SERVICE_SECRET": DiscoveryStack.discoverySecret,
                    "RV_SERVICE_CREDENTIALS": "production=\(productionSecret)",
                ])
            }
            var environment = ["RV_PRODUCTION_PORT": String(productionPort), "RV_PRODUCTION_APPS": showApps]
            if let discovery { environment["RV_DISCOVERY_ADDRESS"] = "127.0.0.1:\(discovery.port)" }
            let production = try await startProduction(identityPort: identity.port, secret: productionSecret,
                                                        credentials: "messaging=\(messagingSecret),identity=\(identitySecret)",
                                                        environment: environment)
            do {
                try await clearOldTestRuns()  // once production has migrated its schema
                let edge = withEdge
                    ? try await NginxEdge.start(routes: ["/rendezvous.identity.": identity.port,
                                                         "/rendezvous.production.": production.port])
                    : nil
                return ProductionStack(identity: identity, production: production, discovery: discovery, edge: edge)
            } catch {
                await production.stop()
                throw error
            }
        } catch {
            await discovery?.stop()
            await identity.stop()
            throw error
        }
    }

    /// The `production` executable following identity at `identityPort` with its own credential
    /// (`secret`), accepting `credentials` on its internal methods; `environment` adds to (or
    /// overrides) those settings. Shared with the stacks of the services production follows.
    package static func startProduction(identityPort: Int, secret: String, credentials: String,
                                        environment extra: [String: String] = [:]) async throws -> EndToEndServiceProcess {
        try await EndToEndServiceProcess.start("production", environment: [
            "RV_PRODUCTION_PORT": "0", "RV_PRODUCTION_ADMIN_PORT": "0",
            "RV_PG_URL_PRODUCTION": DiscoveryStack.postgresURL(role: "production"),
            "RV_IDENTITY_ADDRESS": "127.0.0.1:\(identityPort)", "RV_LOG_LEVEL": "warning",
            "RV_SERVICE_NAME": "production", "RV_SERVICE_SECRET": secret, "RV_SERVICE_CREDENTIALS": credentials,
        ].merging(extra) { _, given in given })
    }

    /// Both processes' logs, for a failure's report.
    package var logs: String {
        "production log:\n\(production.log)\nidentity log:\n\(identity.log)"
            + (discovery.map { "\ndiscovery log:\n\($0.log)" } ?? "")
    }

    package func stop() async {
        edge?.stop()
        await production.stop()
        await discovery?.stop()
        await identity.stop()
    }
}

extension ProductionStack {
    /// Clears what earlier runs of the tests left in production's schema (older than an hour, so
    /// suites running now keep theirs): season numbers are few (1-999 per app) and a long-lived
    /// development database would run out. Consent records are insert-only even for the service
    /// (a trigger), so this runs as the admin with triggers off (`session_replication_role`),
    /// which only a superuser can do: no service role could.
    package static func clearOldTestRuns() async throws {
        let admin = try await TestDatabase.makeAdminPool()
        defer { admin.close() }
        try await admin.withTransaction { connection in
            try await connection.query("SET LOCAL session_replication_role = replica")
            try await connection.executeScript("""
                CREATE TEMP TABLE old_seasons ON COMMIT DROP AS
                    SELECT id FROM production.seasons WHERE created_at < now() - interval '1 hour';
                CREATE TEMP TABLE old_episodes ON COMMIT DROP AS
                    SELECT id FROM production.episodes WHERE season_id IN (SELECT id FROM old_seasons);
                DELETE FROM production.consent_records WHERE episode_id IN (SELECT id FROM old_episodes);
                DELETE FROM production.outfits WHERE episode_id IN (SELECT id FROM old_episodes);
                DELETE FROM production.content_scripts WHERE episode_id IN (SELECT id FROM old_episodes);
                DELETE FROM production.ledger_entries WHERE season_id IN (SELECT id FROM old_seasons)
                    OR episode_id IN (SELECT id FROM old_episodes);
                DELETE FROM production.cast_members WHERE episode_id IN (SELECT id FROM old_episodes);
                DELETE FROM production.episodes WHERE id IN (SELECT id FROM old_episodes);
                DELETE FROM production.seasons WHERE id IN (SELECT id FROM old_seasons);
                """)
        }
    }
}
