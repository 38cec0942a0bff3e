import Contracts
import RPC
import TestSupport
import Testing

/// The edge and W3C Trace Context: a client's `traceparent` reaches the service unchanged; a
/// call without one arrives with a trace the edge started.
extension EdgeTests {
    /// Answers `grpc.testing.TestService/EmptyCall` with the `traceparent` and `tracestate` it
    /// received, as response metadata.
    struct TraceEcho: RPCService {
        var serviceName: String { "grpc.testing.TestService" }

        func register(in router: inout RPCRouter) {
            router.unary(serviceName, "EmptyCall") { (_: GRPCTesting.Empty, context) in
                var echoed = Metadata()
                for key in ["traceparent", "tracestate"] {
                    for element in context.requestMetadata where element.key == key {
                        if case .string(let value) = element.value { echoed.addString(value, forKey: "x-received-\(key)") }
                    }
                }
                context.initialMetadata = echoed
                return GRPCTesting.Empty()
            }
        }
    }

    static func receivedTraceContext(through edge: NginxEdge, sending metadata: Metadata) async throws -> Metadata {
        let client = RPCClient(host: "127.0.0.1", port: edge.port)
        defer { client.close() }
        return try await client.unary(path: "/grpc.testing.TestService/EmptyCall", request: GRPCTesting.Empty(),
                                      as: GRPCTesting.Empty.self, options: CallOptions(metadata: metadata)).initialMetadata
    }

    @Test func traceparent_fromTheClientPassesUnchanged_andOneIsStartedWhenNoneCame() async throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [TraceEcho()])
        let edge = try await NginxEdge.start(NginxEdge.Options(upstreams: ["interop": [try server.start()]]))
        defer { edge.stop() }

        let sent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let passed = try await Self.receivedTraceContext(
            through: edge, sending: Metadata(["traceparent": sent, "tracestate": "rojo=00f067aa0ba902b7"]))
        #expect(passed[string: "x-received-traceparent"] == sent)
        #expect(passed[string: "x-received-tracestate"] == "rojo=00f067aa0ba902b7")
        #expect(passed.filter { $0.key == "x-received-traceparent" }.count == 1)

        // Invalid ones pass too: the service, not the edge, decides to start afresh.
        let invalid = "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"
        let passedInvalid = try await Self.receivedTraceContext(through: edge, sending: Metadata(["traceparent": invalid]))
        #expect(passedInvalid[string: "x-received-traceparent"] == invalid)

        var started: [TraceParent] = []
        for _ in 0..<2 {
            let received = try await Self.receivedTraceContext(through: edge, sending: Metadata())
            let header = try #require(received[string: "x-received-traceparent"])
            let parent = try #require(TraceParent(header: header), "\(header)")
            // The edge records nothing: the services' sampling decides.
            #expect(!parent.isSampled)
            #expect(parent.traceID.hex.hasPrefix(parent.spanID.hex))
            started.append(parent)
        }
        #expect(started[0].traceID != started[1].traceID)
        await server.shutdown(gracePeriod: .zero)
    }
}
