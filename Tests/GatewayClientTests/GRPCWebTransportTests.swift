import Foundation
import GatewayClient
import RPC
import TestSupport
import Testing

/// The gRPC-Web transport's side of what no real service does on purpose: HTTP errors from an
/// edge (404, 429, 503…), a non-gRPC answer, a trailers-only response, a body without a status,
/// a message over the limit, a server that stalls. A stand-in speaks HTTP/1.1 as nginx's
/// gRPC-Web listener does, choosing its answer by the `x-behave` request header. The transport
/// against the real services is EndToEndGRPCWebTests.
@Suite(.serialized) struct GRPCWebTransportTests {
    static let standIn = #"""
    import http.server, socketserver, sys, time, threading
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        def log_message(self, *a): pass
        def frame(self, flag, body): return bytes([flag]) + len(body).to_bytes(4, "big") + body
        def head(self, status, ctype, extra={}):
            self.send_response(status); self.send_header("content-type", ctype)
            for k, v in extra.items(): self.send_header(k, v)
            self.end_headers()
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            behave = self.headers.get("x-behave", "echo")
            web = "application/grpc-web+proto"
            if behave.startswith("http-"):
                self.head(int(behave[5:]), "text/plain"); self.wfile.write(b"edge says no"); return
            if behave == "not-grpc-web":
                self.head(200, "text/html"); self.wfile.write(b"<html></html>"); return
            if behave == "trailers-only":
                self.head(200, web, {"grpc-status": "5", "grpc-message": "no%20such%20thing"}); return
            if behave == "slow":
                time.sleep(5); self.head(200, web); return
            if behave == "huge":
                self.head(200, web); self.wfile.write(bytes([0]) + (5 << 20).to_bytes(4, "big")); return
            self.head(200, web)
            if behave == "no-status":
                self.wfile.write(self.frame(0, b"")); return
            messages, i = [], 0
            while i + 5 <= len(body):
                n = int.from_bytes(body[i+1:i+5], "big"); messages.append(body[i+5:i+5+n]); i += 5 + n
            count = len(messages)
            if behave == "last": messages = messages[-1:]
            for m in messages:
                self.wfile.write(self.frame(0, m)); self.wfile.flush()
                if behave == "stream-slowly": time.sleep(1.5)
            trailers = "grpc-status:0\r\nx-got-timeout:%s\r\nx-got-messages:%d\r\nx-got-web:%s\r\n" % (
                self.headers.get("grpc-timeout", ""), count, self.headers.get("x-grpc-web", ""))
            self.wfile.write(self.frame(0x80, trailers.encode()))
    class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
    s = S(("127.0.0.1", 0), H)
    print("LISTENING %d" % s.server_address[1], flush=True)
    threading.Thread(target=s.serve_forever, daemon=True).start()
    sys.stdin.read()
    """#

    static func withStandIn(_ body: (any GatewayConnection) async throws -> Void) async throws {
        let server = try await Subprocess.Server.start("/usr/bin/python3", ["-c", standIn], standardError: .nullDevice)
        defer { server.stop() }
        let configuration = GatewayConfiguration(host: "127.0.0.1", port: server.port, security: .plaintext, app: "elite")
        let connection = try GatewayTransport.grpcWeb().makeConnection(configuration)
        defer { connection.close() }
        try await body(connection)
    }

    static func options(_ behave: String, timeout: Duration? = .seconds(5)) -> CallOptions {
        CallOptions(timeout: timeout, metadata: Metadata(["x-behave": behave]))
    }

    static func code(_ body: () async throws -> Void) async -> StatusCode? {
        do {
            try await body()
            return .ok
        } catch let error as RPCError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func unary_echoesTheMessage_withTheTrailersAsMetadata() async throws {
        try await Self.withStandIn { connection in
            let response = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(service: "ping"),
                                                      as: HealthCheckRequest.self, options: Self.options("echo", timeout: .seconds(3)))
            #expect(response.message.service == "ping")
            #expect(response.trailingMetadata[string: "x-got-web"] == "1")
            #expect(response.trailingMetadata[string: "x-got-timeout"] == "3000000u", "the deadline goes as grpc-timeout")
        }
    }

    @Test func clientStream_sendsEveryMessageInOneBody() async throws {
        try await Self.withStandIn { connection in
            let response = try await connection.clientStreaming(path: "/t.T/Upload", as: HealthCheckRequest.self,
                                                                options: Self.options("last")) {
                (call: StreamingCall<HealthCheckRequest, HealthCheckRequest>) in
                for index in 0..<3 { try await call.send(HealthCheckRequest(service: "chunk \(index)")) }
            }
            #expect(response.message.service == "chunk 2")
            #expect(response.trailingMetadata[string: "x-got-messages"] == "3")
        }
    }

    @Test func serverStream_deliversEachMessageAsItArrives() async throws {
        try await Self.withStandIn { connection in
            // The stand-in echoes the request message, then waits 1.5 s before its status.
            let start = ContinuousClock.now
            let call = try await connection.serverStreaming(path: "/t.T/Watch", request: HealthCheckRequest(service: "first"),
                                                            as: HealthCheckRequest.self, options: Self.options("stream-slowly"))
            var iterator = call.makeAsyncIterator()
            #expect(try await iterator.next()?.service == "first")
            #expect(ContinuousClock.now - start < .milliseconds(1_400), "the message came before the body ended")
            #expect(try await iterator.next() == nil)
            #expect(await call.status().code == .ok)
        }
    }

    @Test(arguments: [(404, StatusCode.unimplemented), (429, .unavailable), (503, .unavailable), (502, .unavailable),
                      (401, .unauthenticated), (403, .permissionDenied), (400, .internal), (500, .unknown)])
    func httpError_mapsToItsGRPCCode(http: Int, code: StatusCode) async throws {
        try await Self.withStandIn { connection in
            let got = await Self.code {
                _ = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(), as: HealthCheckRequest.self,
                                               options: Self.options("http-\(http)"))
            }
            #expect(got == code)
        }
    }

    @Test func answerThatIsNotGRPCWeb_isUnknown() async throws {
        try await Self.withStandIn { connection in
            let got = await Self.code {
                _ = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(), as: HealthCheckRequest.self,
                                               options: Self.options("not-grpc-web"))
            }
            #expect(got == .unknown)
        }
    }

    @Test func trailersOnlyResponse_takesItsStatusFromTheHeaders() async throws {
        try await Self.withStandIn { connection in
            do {
                _ = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(), as: HealthCheckRequest.self,
                                               options: Self.options("trailers-only"))
                Issue.record("the call succeeded")
            } catch let error as RPCError {
                #expect(error.code == .notFound)
                #expect(error.message == "no such thing")
            }
        }
    }

    @Test func bodyWithoutStatus_isInternal() async throws {
        try await Self.withStandIn { connection in
            let got = await Self.code {
                _ = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(), as: HealthCheckRequest.self,
                                               options: Self.options("no-status"))
            }
            #expect(got == .internal)
        }
    }

    @Test func messageOverTheLimit_isResourceExhausted() async throws {
        try await Self.withStandIn { connection in
            let got = await Self.code {
                _ = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(), as: HealthCheckRequest.self,
                                               options: Self.options("huge"))
            }
            #expect(got == .resourceExhausted)
        }
    }

    @Test func stalledServer_failsAtTheDeadline() async throws {
        try await Self.withStandIn { connection in
            let start = ContinuousClock.now
            let got = await Self.code {
                _ = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(), as: HealthCheckRequest.self,
                                               options: Self.options("slow", timeout: .milliseconds(300)))
            }
            #expect(got == .deadlineExceeded)
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }

    @Test func cancellingTheTask_cancelsTheCall() async throws {
        try await Self.withStandIn { connection in
            let start = ContinuousClock.now
            let task = Task {
                await Self.code {
                    _ = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(), as: HealthCheckRequest.self,
                                                   options: Self.options("slow", timeout: nil))
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            #expect(await task.value == .cancelled)
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }

    @Test func bidirectionalCall_isUnimplemented_namingTheHTTP2Transport() async throws {
        try await Self.withStandIn { connection in
            do {
                let _: StreamingCall<HealthCheckRequest, HealthCheckRequest> =
                    try await connection.bidirectional(path: "/rendezvous.messaging.v1.Calls/Signal", options: CallOptions())
                Issue.record("a bidirectional call was opened")
            } catch let error as RPCError {
                #expect(error.code == .unimplemented)
                #expect(error.message.contains("HTTP/2 transport"))
            }
        }
    }

    @Test func closedConnection_failsCallsUnavailable() async throws {
        try await Self.withStandIn { connection in
            connection.close()
            let got = await Self.code {
                _ = try await connection.unary(path: "/t.T/Echo", request: HealthCheckRequest(), as: HealthCheckRequest.self,
                                               options: Self.options("echo"))
            }
            #expect(got == .unavailable)
        }
    }

    @Test func privateCA_isRefusedWithAClearStatus() {
        let configuration = GatewayConfiguration(host: "127.0.0.1", port: 1, security: .tlsTrustingRoots(pemFile: "/x.pem"), app: "elite")
        #expect(throws: RPCError.self) { try GatewayClient(configuration: configuration, transport: .grpcWeb()) }
    }
}
