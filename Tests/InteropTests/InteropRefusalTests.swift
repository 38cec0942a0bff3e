import Contracts
import Foundation
import InteropServer
import RPC
import Testing

/// interop-server's refusals over the wire, as the contract sweep holds every service to: a
/// reason platform.proto declares, and a payload it could never send refused at once, before it
/// is made (response_size 2^31-1 used to build a 2 GiB payload for seconds, stalling the calls
/// beside it, before MESSAGE_TOO_LARGE).
@Suite struct InteropRefusalTests {
    typealias Messages = GRPCTesting

    static func withClient(_ body: (RPCClient) async throws -> Void) async throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let port = try server.start()
        let client = RPCClient(host: "127.0.0.1", port: port)
        do {
            try await body(client)
        } catch {
            client.close()
            await server.shutdown(gracePeriod: .zero)
            throw error
        }
        client.close()
        await server.shutdown(gracePeriod: .seconds(1))
    }

    static func path(_ method: String) -> String { "/\(TestServiceClient.serviceName)/\(method)" }

    static func error(_ body: () async throws -> Void) async -> RPCError? {
        do {
            try await body()
            return nil
        } catch let error as RPCError {
            return error
        } catch {
            return nil
        }
    }

    @Test func aPayloadLargerThanTheServerSends_isRefusedAtOnce() async throws {
        try await Self.withClient { client in
            let clock = ContinuousClock()
            let started = clock.now
            let unary = await Self.error {
                _ = try await client.unary(path: Self.path("UnaryCall"), request: Messages.SimpleRequest(responseSize: .max),
                                           as: Messages.SimpleResponse.self)
            }
            #expect(unary?.code == .resourceExhausted && unary?.reason == "MESSAGE_TOO_LARGE")
            var request = Messages.StreamingOutputCallRequest()
            request.responseParameters = [Messages.ResponseParameters(size: .max)]
            let streamed = await Self.error {
                let call = try await client.serverStreaming(path: Self.path("StreamingOutputCall"), request: request,
                                                            as: Messages.StreamingOutputCallResponse.self)
                for try await _ in call {}
            }
            #expect(streamed?.code == .resourceExhausted && streamed?.reason == "MESSAGE_TOO_LARGE")
            #expect(clock.now - started < .milliseconds(500))
        }
    }

    @Test func refusals_carryAReasonPlatformDeclares() async throws {
        try await Self.withClient { client in
            let negative = await Self.error {
                _ = try await client.unary(path: Self.path("UnaryCall"), request: Messages.SimpleRequest(responseSize: -1),
                                           as: Messages.SimpleResponse.self)
            }
            #expect(negative?.code == .invalidArgument && negative?.reason == "INVALID_ARGUMENT")
            var uncompressed = Messages.SimpleRequest(responseSize: 1)
            uncompressed.expectCompressed = Messages.BoolValue(value: true)
            let notCompressed = await Self.error {
                _ = try await client.unary(path: Self.path("UnaryCall"), request: uncompressed, as: Messages.SimpleResponse.self)
            }
            #expect(notCompressed?.code == .invalidArgument && notCompressed?.reason == "INVALID_ARGUMENT")
        }
    }
}
