import Auth
import Contracts
import RPC
import Testing

/// `ServiceAuthInterceptor` in front of a live server: guarded methods need an accepted
/// credential that their access admits; other methods pass untouched.
@Suite struct ServiceAuthInterceptorTests {
    typealias Messages = GRPCTesting

    /// Answers with the calling service's name (empty when none) in `username`.
    struct Probe: RPCService {
        static let name = "rendezvous.test.v1.ServiceProbe"
        var serviceName: String { Self.name }

        func register(in router: inout RPCRouter) {
            for method in ["Internal", "MessagingOnly", "Open"] {
                router.unary(serviceName, method) { (_: Messages.SimpleRequest, context) in
                    var response = Messages.SimpleResponse()
                    response.username = context.callingService ?? ""
                    return response
                }
            }
        }

        static func path(_ method: String) -> String { "/\(name)/\(method)" }
    }

    // Valid literals: a name of a-z and a 40-character secret.
    static let messaging = try! ServiceCredential(name: "messaging", secret: String(repeating: "m", count: 40))
    static let discovery = try! ServiceCredential(name: "discovery", secret: String(repeating: "d", count: 40))

    final class Harness: Sendable {
        let server: RPCServer
        let client: RPCClient

        init(credentials: ServiceCredentials) throws {
            var configuration = RPCServerConfiguration()
            configuration.loopCount = 1
            let interceptor = ServiceAuthInterceptor(credentials: credentials, methods: [
                Probe.path("Internal"): .anyService,
                Probe.path("MessagingOnly"): .only(["messaging"]),
            ])
            server = try RPCServer(configuration: configuration, services: [Probe()], interceptors: [interceptor])
            try server.start()
            client = RPCClient(host: "127.0.0.1", port: server.port)
        }

        func call(_ method: String, _ options: CallOptions = CallOptions()) async throws -> String {
            try await client.unary(path: Probe.path(method), request: Messages.SimpleRequest(),
                                   as: Messages.SimpleResponse.self, options: options).message.username
        }

        func failure(_ method: String, _ options: CallOptions = CallOptions()) async -> RPCError? {
            do {
                _ = try await call(method, options)
                return nil
            } catch {
                return error as? RPCError
            }
        }

        func stop() async {
            client.close()
            await server.shutdown(gracePeriod: .zero)
        }
    }

    static func authorization(_ value: String) -> CallOptions {
        CallOptions(metadata: Metadata(["authorization": value]))
    }

    @Test func acceptedCredential_reachesTheHandler_withTheCallersName() async throws {
        let harness = try Harness(credentials: ServiceCredentials([Self.messaging, Self.discovery]))
        #expect(try await harness.call("Internal", .service(Self.messaging)) == "messaging")
        #expect(try await harness.call("Internal", .service(Self.discovery)) == "discovery")
        #expect(try await harness.call("MessagingOnly", .service(Self.messaging)) == "messaging")
        await harness.stop()
    }

    @Test func noCredential_orAUsersBearerToken_isMissingServiceCredential() async throws {
        let harness = try Harness(credentials: ServiceCredentials([Self.messaging]))
        for options in [CallOptions(), Self.authorization("Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln")] {
            let error = await harness.failure("Internal", options)
            #expect(error?.code == .unauthenticated && error?.reason == "MISSING_SERVICE_CREDENTIAL")
        }
        await harness.stop()
    }

    @Test func wrongSecret_unknownService_orMalformed_isBadServiceCredential() async throws {
        let harness = try Harness(credentials: ServiceCredentials([Self.messaging]))
        let wrongSecret = try ServiceCredential(name: "messaging", secret: String(repeating: "x", count: 40))
        for options in [CallOptions.service(wrongSecret), .service(Self.discovery), Self.authorization("Service messaging"),
                        Self.authorization("Service messaging:\(String(repeating: "m", count: 39))")] {
            let error = await harness.failure("Internal", options)
            #expect(error?.code == .unauthenticated && error?.reason == "BAD_SERVICE_CREDENTIAL")
        }
        await harness.stop()
    }

    @Test func acceptedServiceNotAdmittedByTheMethod_isPermissionDenied() async throws {
        let harness = try Harness(credentials: ServiceCredentials([Self.messaging, Self.discovery]))
        let error = await harness.failure("MessagingOnly", .service(Self.discovery))
        #expect(error?.code == .permissionDenied && error?.reason == "SERVICE_NOT_ALLOWED")
        await harness.stop()
    }

    @Test func nothingConfigured_refusesEveryInternalCall() async throws {
        let harness = try Harness(credentials: ServiceCredentials())
        let error = await harness.failure("Internal", .service(Self.messaging))
        #expect(error?.code == .unauthenticated && error?.reason == "BAD_SERVICE_CREDENTIAL")
        let missing = await harness.failure("Internal")
        #expect(missing?.reason == "MISSING_SERVICE_CREDENTIAL")
        await harness.stop()
    }

    @Test func unguardedMethod_passesWithoutACredential_andHasNoCallingService() async throws {
        let harness = try Harness(credentials: ServiceCredentials([Self.messaging]))
        #expect(try await harness.call("Open") == "")
        // A credential on an unguarded method is not checked, and not trusted either.
        #expect(try await harness.call("Open", .service(Self.messaging)) == "")
        await harness.stop()
    }
}
