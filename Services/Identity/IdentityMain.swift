#if canImport(Glibc)
import Glibc
#endif
import Contracts
import RPC
import Runtime

/// `identity`: accounts, sign-in, sessions and signing keys for every app, on 127.0.0.1:7101
/// by default (RV_IDENTITY_PORT), schema `identity` as role rv_identity
/// (RV_PG_URL_IDENTITY). Keys: see `KeyEncryptionKey` (RV_IDENTITY_KEY_ENCRYPTION_KEY).
/// Services accepted on internal methods (WatchEvents, DevicesInternal): RV_SERVICE_CREDENTIALS,
/// see `ServiceCredentials`; unset, every internal call is refused. DevicesInternal is open to
/// the services in RV_IDENTITY_PUSH_TOKEN_CALLERS (default messaging). The apps served and
/// their policies: `AppPolicies.standard`, changed or extended by RV_IDENTITY_APPS_FILE
/// (`AppPoliciesFile`).
@main
struct IdentityMain {
    static func main() async {
        if CommandLine.arguments.dropFirst().first == GrantRoleCommand.name {
            exit(await GrantRoleCommand.main(arguments: Array(CommandLine.arguments.dropFirst(2))))
        }
        await ServiceMain.run(name: "identity", defaultPort: 7101, onListening: { addresses in
            print("identity listening on \(addresses.host):\(addresses.port)")
            fflush(nil)
        }) { context in
            let (key, isDevelopment) = try KeyEncryptionKey.load(from: context.environment)
            if isDevelopment {
                context.logger.warning("\(KeyEncryptionKey.variable) is not set: signing keys are sealed with the development key")
            }
            var settings = IdentitySettings(keyEncryptionKey: key)
            settings.apps = try AppPoliciesFile.load(from: context.environment, onto: settings.apps)
            try AppStoreSettings.load(from: context.environment, into: &settings)
            try settings.configureSignIn(from: context.environment, logger: context.logger)
            let pool = try await context.makePostgresPool(schema: "identity", migrations: try IdentityMigrations.all())
            let outbox = try Outbox(schema: "identity")
            let notifier = try await context.makeOutboxNotifier(pool: pool, channel: outbox.channel)
            let events = EventStreamService(outbox: outbox, pool: pool, notifier: notifier)
            settings.serviceCredentials = try context.environment.acceptedServiceCredentials()
            if let callers = context.environment[DeviceSettings.pushTokenCallersVariable] {
                settings.devices.pushTokenCallers = DeviceSettings.callers(parsing: callers)
            }
            if let callers = context.environment[ContactsInternalService.callersVariable] {
                settings.contactCallers = DeviceSettings.callers(parsing: callers)
            }
            if settings.serviceCredentials.isEmpty {
                context.logger.warning("\(EnvironmentReader.serviceCredentialsVariable) is not set: internal methods refuse every call")
            }
            // Events are for the other services inside the deployment (service credential
            // required); the edge does not route rendezvous.events.v1.
            let server = try await IdentityServer.make(
                pool: pool, settings: settings, extraServices: [events],
                extraInternalMethods: EventStreamService.internalMethods, revocations: context.revocations)
            // Revocations made by sibling instances (and role, tier and membership changes) reach
            // this one through the outbox, as they reach every other service through WatchEvents.
            context.followRevocations(events: events)
            for interceptor in server.interceptors { context.addInterceptor(interceptor) }
            context.addBackgroundJob("signing key rotation") {
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(60))
                    do {
                        try await server.keyStore.refresh(into: server.ring)
                    } catch {
                        context.logger.error("signing key refresh failed", metadata: ["error": .string("\(error)")])
                    }
                }
            }
            // Production's submitted applications make viewers applicants (RV_PRODUCTION_ADDRESS;
            // identity's own credential, RV_SERVICE_NAME and RV_SERVICE_SECRET, must be one
            // production accepts).
            if let address = context.environment[ApplicantEvents.addressVariable] {
                let (host, port) = try EnvironmentReader.hostAndPort(address, variable: ApplicantEvents.addressVariable)
                let production = RPCClient(host: host, port: port)
                context.onShutdown("production client") { production.close() }
                let applicants = ApplicantEvents(apps: settings.apps,
                                                 roles: RoleStore(outbox: outbox, revocationList: context.revocations))
                let consumer = try EventConsumer(source: ApplicantEvents.source, schema: "identity", pool: pool, client: production,
                                                 types: ApplicantEvents.types,
                                                 credential: try context.environment.serviceCredential(),
                                                 logger: context.logger) { event, connection in
                    try await applicants.apply(event, on: connection)
                }
                context.follow(consumer)
            }
            context.addBackgroundJob("tier expiry sweep") {
                try await TierExpirySweep(pool: pool, outbox: outbox).run { error in
                    context.logger.error("tier expiry sweep failed", metadata: ["error": .string("\(error)")])
                }
            }
            return server.services
        }
    }
}
