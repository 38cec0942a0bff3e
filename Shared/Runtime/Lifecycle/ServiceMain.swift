#if canImport(Glibc)
import Glibc
#endif
import Auth
import Logging
package import RPC
import ServiceLifecycle
import Synchronization
import Tracing

/// The `main` of every service: configuration, logging, metrics, the gRPC server with the
/// runtime's interceptors, the admin listener, and graceful shutdown on SIGTERM/SIGINT.
///
/// ```swift
/// await ServiceMain.run(name: "identity", defaultPort: 7101) { context in
///     context.onShutdown("pool") { await pool.close() }
///     return [IdentityService(...)]
/// }
/// ```
///
/// Exit status: 0 after a graceful shutdown, 2 for a configuration error (also one the set-up
/// closure throws), 1 for anything else.
package enum ServiceMain {
    /// Where the service listens, once it does.
    package struct Addresses: Sendable {
        /// The bound address.
        package var host: String
        /// The gRPC port.
        package var port: Int
        /// The admin listener's port.
        package var adminPort: Int
    }

    /// Runs the service until SIGTERM or SIGINT, then exits the process.
    package static func run(
        name: String, defaultPort: Int,
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        environment: Environment = .process,
        onListening: @escaping @Sendable (Addresses) -> Void = { _ in },
        _ makeServices: @Sendable (ServiceContext) async throws -> [any RPCService]
    ) async -> Never {
        let status = await execute(name: name, defaultPort: defaultPort, arguments: arguments,
                                   environment: environment, onListening: onListening, makeServices)
        LogSink.standardError.flush()
        exit(status)
    }

    /// `run` without the exit: returns the exit status.
    package static func execute(
        name: String, defaultPort: Int, arguments: [String], environment: Environment,
        onListening: @escaping @Sendable (Addresses) -> Void,
        _ makeServices: @Sendable (ServiceContext) async throws -> [any RPCService]
    ) async -> Int32 {
        let configuration: ServiceConfiguration
        let serverConfiguration: RPCServerConfiguration
        do {
            configuration = try ServiceConfiguration.load(name: name, defaultPort: defaultPort,
                                                          environment: environment, arguments: arguments)
            serverConfiguration = try configuration.makeServerConfiguration()
        } catch {
            LogSink.standardError.write("\(name): configuration error: \(error)\n")
            LogSink.standardError.flush()
            return 2
        }

        bootstrapLogging(configuration)
        let logger = Logger(label: name)
        let metrics = RuntimeMetrics()
        metrics.bootstrapSystem()
        let readiness = Readiness()
        let context = ServiceContext(configuration: configuration, logger: logger, metrics: metrics,
                                     readiness: readiness, environment: environment)
        let exporter = configuration.otlpEndpoint.map { endpoint in
            OTLPExporter(host: endpoint.host, port: endpoint.port, serviceName: name, metrics: metrics, logger: logger)
        }
        bootstrapTracing(RuntimeTracer(sampleRatio: configuration.traceSampleRatio, sink: exporter))
        if let exporter {
            context.addBackgroundJob("otlp-export") { await exporter.run() }
            context.onShutdown("otlp-export") { exporter.close() }
        }

        let server: RPCServer
        let admin: AdminServer
        let addresses: Addresses
        do {
            let services = try await makeServices(context)
            // A service that verifies access tokens is ready once it holds identity's signing keys.
            for case let auth as AuthInterceptor in context.interceptors {
                context.addReadinessCheck("signing keys") {
                    do { try await auth.verifier.ensureKeys() } catch { throw ReadinessFailure("none fetched from identity yet") }
                }
            }
            let interceptors: [any ServerInterceptor] =
                [LoggingInterceptor(logger: logger), MetricsInterceptor(metrics: metrics)] + context.interceptors
            server = try RPCServer(configuration: serverConfiguration, services: services, interceptors: interceptors,
                                   http: context.httpHandler)
            // NOT_SERVING until the readiness checks have said otherwise (below): a probe must
            // not find the process ready before its dependencies were looked at.
            server.health.setReadiness(false)
            admin = try AdminServer(host: configuration.host, port: configuration.adminPort,
                                    routes: AdminRoutes(metrics: metrics, readiness: readiness, http: context.httpHandler))
            let port = try server.start()
            do {
                let adminPort = try admin.start()
                addresses = Addresses(host: configuration.host, port: port, adminPort: adminPort)
            } catch {
                await server.shutdown(gracePeriod: .zero)
                throw error
            }
        } catch let error as ConfigurationError {
            LogSink.standardError.write("\(name): configuration error: \(error)\n")
            LogSink.standardError.flush()
            await context.runClosers()
            return 2
        } catch {
            logger.critical("could not start", metadata: ["error": .string("\(error)")])
            await context.runClosers()
            return 1
        }

        // Serving is declared from inside the service group, which traps SIGTERM and SIGINT before
        // it starts its services: a process found ready (or whose ports were announced) always
        // drains and flushes its log when told to stop. Declared before the group ran, a SIGTERM
        // in between met the default action and ended the process at once.
        let tls = configuration.tls != nil
        let publisher = ReadinessPublisherService(readiness: readiness, health: server.health) { [server] in
            readiness.markServing()
            // What the checks say, before anyone is told where it listens; the publisher keeps it so.
            let ready = await readiness.evaluate().ready
            if readiness.phase == .serving { server.health.setReadiness(ready) }
            logger.info("serving", metadata: [
                "host": .string(addresses.host), "port": .stringConvertible(addresses.port),
                "admin_port": .stringConvertible(addresses.adminPort),
                "tls": .stringConvertible(tls),
                "event_loops": .stringConvertible(server.loopCount),
            ])
            onListening(addresses)
        }

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: AdminService(server: admin)),
            .init(service: publisher),
        ]
        for (jobName, job) in context.jobs {
            services.append(.init(service: BackgroundJobService(name: jobName, job: job, logger: logger),
                                  successTerminationBehavior: .ignore,
                                  failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        // Last in the list: shut down first, while the admin listener still reports the drain.
        services.append(.init(service: RPCServerService(server: server, readiness: readiness,
                                                        gracePeriod: configuration.shutdownGracePeriod,
                                                        logger: logger)))
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod + .seconds(5)

        var status: Int32 = 0
        do {
            try await ServiceGroup(configuration: groupConfiguration).run()
        } catch {
            logger.error("stopped after a failure", metadata: ["error": .string("\(error)")])
            status = 1
        }
        await context.runClosers()
        logger.info("stopped", metadata: ["status": .stringConvertible(status)])
        return status
    }

    private static let loggingBootstrapped = Atomic<Bool>(false)
    private static let tracingBootstrapped = Atomic<Bool>(false)

    /// Installs `tracer` as the process's (`InstrumentationSystem`; once per process, so a
    /// second service run in the same process keeps the first one's): every call, outgoing
    /// call and Postgres statement then runs in a span of it.
    package static func bootstrapTracing(_ tracer: RuntimeTracer) {
        guard tracingBootstrapped.compareExchange(expected: false, desired: true,
                                                  ordering: .acquiringAndReleasing).exchanged else { return }
        InstrumentationSystem.bootstrap(tracer)
    }

    /// Installs `StructuredLogHandler` as the process's log handler (once per process).
    package static func bootstrapLogging(_ configuration: ServiceConfiguration) {
        guard loggingBootstrapped.compareExchange(expected: false, desired: true,
                                                  ordering: .acquiringAndReleasing).exchanged else { return }
        let level = configuration.logLevel
        let format = configuration.logFormat
        LoggingSystem.bootstrap { label in
            StructuredLogHandler(label: label, level: level, format: format)
        }
    }
}
