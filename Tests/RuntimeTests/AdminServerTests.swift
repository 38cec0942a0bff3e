import Contracts
import RPC
@testable import Runtime
import Testing
import TestSupport

@Suite struct AdminServerTests {
    @Test func healthz_ok() async throws {
        let harness = try RuntimeHarness()
        let response = try await HTTPProbe.get("/healthz", port: harness.adminPort)
        await harness.stop()
        #expect(response.status == 200)
        #expect(response.body == "ok\n")
        #expect(response.headers["connection"] == "close")
        #expect(response.headers["content-length"] == "3")
    }

    @Test func metrics_afterACall_exposeRequestCounter() async throws {
        let harness = try RuntimeHarness()
        let client = harness.makeClient()
        _ = try await client.unary(path: "/\(ProbeService.name)/Echo", request: GRPCTesting.SimpleRequest(),
                                   as: GRPCTesting.SimpleResponse.self)
        client.close()
        let response = try await HTTPProbe.get("/metrics", port: harness.adminPort)
        await harness.stop()
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.body.contains("# TYPE rpc_server_requests_total counter"))
        #expect(response.body.contains(#"rpc_server_requests_total{method="/rendezvous.test.v1.Probe/Echo",code="OK"} 1"#))
        #expect(response.body.contains("# TYPE rpc_server_duration_seconds histogram"))
    }

    @Test func readyz_followsTheLifecycle() async throws {
        let harness = try RuntimeHarness()
        let ready = try await HTTPProbe.get("/readyz", port: harness.adminPort)
        harness.readiness.markDraining()
        let draining = try await HTTPProbe.get("/readyz", port: harness.adminPort)
        await harness.stop()
        #expect(ready.status == 200)
        #expect(draining.status == 503)
        #expect(draining.body == "draining\n")
    }

    @Test func readyz_failingCheck_is503WithItsName() async throws {
        let harness = try RuntimeHarness()
        harness.readiness.addCheck("postgres") { throw ProbeError("connection refused") }
        let response = try await HTTPProbe.get("/readyz", port: harness.adminPort)
        await harness.stop()
        #expect(response.status == 503)
        #expect(response.body == "postgres: connection refused\n")
    }

    @Test(arguments: [("/nope", "GET", 404), ("/metrics", "POST", 405), ("/healthz", "DELETE", 405)])
    func otherRequests_areRefused(path: String, method: String, status: Int) async throws {
        let harness = try RuntimeHarness()
        let response = try await HTTPProbe.get(path, port: harness.adminPort, method: method)
        await harness.stop()
        #expect(response.status == status)
        if status == 405 { #expect(response.headers["allow"] == "GET, HEAD") }
    }

    @Test func head_answersWithoutBody() async throws {
        let harness = try RuntimeHarness()
        let response = try await HTTPProbe.get("/healthz", port: harness.adminPort, method: "HEAD")
        await harness.stop()
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "3")
        #expect(response.body.isEmpty)
    }

    @Test func garbage_is400() async throws {
        let harness = try RuntimeHarness()
        let response = try await HTTPProbe.exchange("HELLO\r\n\r\n", port: harness.adminPort)
        await harness.stop()
        #expect(response.status == 400)
    }

    @Test func oversizedHead_is431() async throws {
        let harness = try RuntimeHarness()
        let request = "GET /metrics HTTP/1.1\r\nX-Filler: " + String(repeating: "a", count: 9000) + "\r\n\r\n"
        let response = try await HTTPProbe.exchange(request, port: harness.adminPort)
        await harness.stop()
        #expect(response.status == 431)
    }

    @Test func slowClient_isTimedOut() async throws {
        let harness = try RuntimeHarness(adminReadTimeout: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await HTTPProbe.exchange("GET /metrics HTTP/1.1\r\n", port: harness.adminPort)
        let elapsed = clock.now - start
        await harness.stop()
        #expect(response.status == 408)
        #expect(elapsed < .seconds(3))
    }

    @Test func manyConcurrentProbes_allAnswered() async throws {
        let harness = try RuntimeHarness()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await HTTPProbe.get(index.isMultiple(of: 2) ? "/metrics" : "/healthz", port: harness.adminPort).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await harness.stop()
        #expect(statuses.count == 40)
        #expect(statuses.allSatisfy { $0 == 200 })
    }
}
