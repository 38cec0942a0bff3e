import Foundation
import InteropServer
import RPC
import Testing
import TestSupport

/// A stock gRPC-Web client (Python's sonora, over HTTP/1.1 like a browser) through the nginx
/// edge (`grpc_pass` from its HTTP/1.1 listener), against our interop server and against the
/// real identity executable. Cases in `Fixtures/grpcweb_client.py`.
@Suite(.serialized)
struct GRPCWebSonoraTests {
    static let cases = [
        "empty_unary", "large_unary", "large_payloads", "server_streaming", "client_streaming", "half_duplex",
        "custom_metadata", "status_code_and_message", "special_status_message", "error_details",
        "unimplemented_method", "unimplemented_service", "timeout_on_sleeping_server", "server_streaming_incremental",
        "web_text_unary", "web_text_streaming",
    ]
    static let origin = "https://app.example.com"

    static func runClient(port: Int, cases: [String]) async throws -> SubprocessResult {
        let script = RepositoryPaths.interopFixtures.appendingPathComponent("grpcweb_client.py").path
        return try await Subprocess.run("/usr/bin/env", [
            "python3", script, "--url", "http://127.0.0.1:\(port)", "--test_case", cases.joined(separator: ","),
        ], timeout: .seconds(60))
    }

    static func expectAllPassed(_ result: SubprocessResult, _ cases: [String], log: @autoclosure () -> String = "") {
        for name in cases {
            #expect(result.output.contains("PASS \(name)\n"), "case \(name):\n\(result.output)\(log())")
        }
        #expect(result.output.contains("\(cases.count) passed, 0 failed"), "\(result.output)")
        #expect(result.exitCode == 0)
    }

    /// grpcio's plain gRPC cases run through the edge's HTTP/2 listener at the same time, to the
    /// same server port: one port, both protocols, side by side.
    @Test func interopCases_fromSonoraThroughTheEdgeOverHTTP1_pass_besidePlainGRPC() async throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let upstreamPort = try server.start()
        let edge = try await NginxEdge.start(routes: ["/grpc.testing.": upstreamPort, "/grpc.health.": upstreamPort])
        defer { edge.stop() }
        let grpcCases = ["empty_unary", "large_unary", "client_streaming", "server_streaming", "ping_pong",
                         "custom_metadata", "status_code_and_message", "unimplemented_method", "concurrent_streams"]
        let script = RepositoryPaths.interopFixtures.appendingPathComponent("interop_client.py").path
        async let grpc = Subprocess.run("/usr/bin/env", [
            "python3", script, "--host", "127.0.0.1", "--port", "\(edge.port)", "--test_case", grpcCases.joined(separator: ","),
        ], timeout: .seconds(60))
        let result = try await Self.runClient(port: edge.http1Port, cases: Self.cases)
        let grpcResult = try await grpc
        await server.shutdown(gracePeriod: .seconds(2))
        Self.expectAllPassed(result, Self.cases)
        Self.expectAllPassed(grpcResult, grpcCases)
    }

    /// A real Rendezvous call from a browser's point of view: identity started as in production
    /// with `RV_CORS_ORIGINS`, reached through the edge's HTTP/1.1 listener.
    @Test func identity_signInThenBearerCall_andCORS_throughTheEdge() async throws {
        let identity = try await DiscoveryStack.startIdentity(credentials: "grpcweb=\(UUID().uuidString)",
                                                              environment: ["RV_CORS_ORIGINS": Self.origin])
        let edge: NginxEdge
        do {
            edge = try await NginxEdge.start(routes: ["/rendezvous.identity.": identity.port])
        } catch {
            await identity.stop()
            throw error
        }
        defer { edge.stop() }
        let result = try await Self.runClient(port: edge.http1Port, cases: ["identity"])
        Self.expectAllPassed(result, ["identity"], log: "\nidentity log:\n\(identity.log)")

        let url = "http://127.0.0.1:\(edge.http1Port)/rendezvous.identity.v1.Identity/SignInAnonymously"
        let preflight = try await WebCurl.request(url, method: "OPTIONS", http2: false, headers: [
            "origin: \(Self.origin)", "access-control-request-method: POST", "access-control-request-headers: content-type,x-grpc-web",
        ])
        #expect(preflight.httpVersion == "HTTP/1.1")
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-origin"] == Self.origin)
        #expect(preflight.headers["access-control-allow-headers"] == "content-type,x-grpc-web")
        let refused = try await WebCurl.request(url, method: "OPTIONS", http2: false, headers: [
            "origin: https://evil.example.com", "access-control-request-method: POST",
        ])
        #expect(refused.status == 403)
        #expect(refused.headers["access-control-allow-origin"] == nil)

        // SignInAnonymously{app: "swivo"}: field 1, length 5.
        let request = WebBody.frame([0x0A, 0x05] + Array("swivo".utf8))
        for (origin, allowed) in [(Self.origin, true), ("https://evil.example.com", false)] {
            let response = try await WebCurl.request(url, http2: false, headers: [
                "content-type: application/grpc-web+proto", "x-grpc-web: 1", "origin: \(origin)",
            ], body: request)
            #expect(response.status == 200)
            #expect(response.headers["access-control-allow-origin"] == (allowed ? origin : nil))
            #expect(response.headers["access-control-expose-headers"] == (allowed ? "grpc-status, grpc-message, grpc-status-details-bin" : nil))
            #expect(WebBody.frames(response.body).flatMap { $0.last }.map { WebBody.trailers($0)["grpc-status"] } == "0",
                    "\(String(decoding: response.body, as: UTF8.self))")
        }
        await identity.stop()
    }
}
