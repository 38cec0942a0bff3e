import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import Journeys
import RPC
import TestSupport
import Testing

/// The deployment as the apps' teams run it: compose/docker-compose.yml brought up by
/// podman-compose from the images `make images` built (the services' distroless images, the
/// edge's, Postgres with PostGIS), the gateway client reaching only the edge's TLS port. The five
/// products' journeys run through it; Prometheus (docker-compose.monitoring.yml) scrapes every
/// service's container and the edge's metrics; a service's container stopped makes the edge answer
/// UNAVAILABLE, which the edge counts, and started again serves; the teardown leaves no container,
/// network or volume.
/// Runs when RV_CONTAINER_TESTS=1 (`make test` sets it once the images are built).
@Suite(.serialized, .enabled(if: ContainerStack.enabled, "RV_CONTAINER_TESTS=1 runs it after `make images`"))
struct ContainerJourneyTests {
    @Test(.timeLimit(.minutes(10)))
    func fiveJourneys_aStoppedServiceIsUnavailable_thenServesAgain_andNothingIsLeft() async throws {
        let stack = try await ContainerStack.start(
            messagingEnvironment: JourneyCatalog.messagingEnvironment,
            mediaEnvironment: ["RV_MEDIA_REVEAL_INTERVAL_MS": "50", "RV_MEDIA_SWEEP_INTERVAL_MS": "100",
                               "RV_MEDIA_RENDITION_INTERVAL_MS": "50"])
        do {
            let context = JourneyContext(stack: stack)
            var failed = false
            for name in ["elite", "firstdate", "swivo", "unseen", "momento"] {
                do {
                    try await JourneyCatalog.all[name]!(context)  // the catalogue has all five
                } catch {
                    failed = true
                    Issue.record("the \(name) journey through the containers failed: \(error)")
                }
            }
            if failed { print(await stack.logs()) }
            try await expectEveryContainerScraped(stack)
            try await stopAndStart(stack)
        } catch {
            print(await stack.logs())
            _ = try? await stack.stop()
            throw error
        }
        let left = try await stack.stop()
        #expect(left.isEmpty, "left after podman-compose down: \(left)")
    }

    /// Identity's container stopped: the edge answers GetAccount UNAVAILABLE within a call's
    /// 3 s deadline (its address answers no connect, and the edge gives a connect 2 s); started
    /// again, the same session's calls succeed.
    private func stopAndStart(_ stack: ContainerStack) async throws {
        let configuration = GatewayConfiguration(host: stack.edgeHost, port: stack.edgePort, security: stack.edgeSecurity,
                                                 app: "swivo", deviceName: "containers",
                                                 retryPolicy: RetryPolicy(maxAttempts: 1))
        let client = try GatewayClient(configuration: configuration, tokenStore: InMemoryTokenStore())
        defer { client.close() }
        let account = try await client.identity.signInAnonymously()

        try await stack.stopService("identity")
        let refusal = try await firstOutcome(within: .seconds(15)) { () async -> String in
            do {
                _ = try await client.identity.getAccount(deadline: .seconds(3))
                return "OK"
            } catch let error as GatewayError {
                return "\(error.code)"
            } catch {
                return "\(error)"
            }
        } until: { $0 == "\(StatusCode.unavailable)" }
        #expect(refusal == "\(StatusCode.unavailable)", "with identity stopped the edge answered \(refusal)")
        // The edge counted it, and Prometheus has it (scrape interval 15 s).
        let counted = try await firstOutcome(within: .seconds(45)) { () async -> Double in
            (try? await Self.query(stack, #"sum(edge_responses_total{route="identity",code="UNAVAILABLE"})"#).first?.value) ?? 0
        } until: { $0 >= 1 }
        #expect(counted >= 1, "Prometheus has no UNAVAILABLE answer of the edge for identity")

        try await stack.startService("identity")
        let again = try await firstOutcome(within: .seconds(15)) { () async -> Identity.Account? in
            try? await client.identity.getAccount(deadline: .seconds(3))
        } until: { $0 != nil }
        #expect(again?.id == account.id, "identity started again, GetAccount still fails")
    }

    /// Prometheus finds every service's container and the edge by DNS and scrapes them: each
    /// target up, and the journeys' calls in the services' and the edge's counters.
    private func expectEveryContainerScraped(_ stack: ContainerStack) async throws {
        let expected = Set(ContainerStack.services + ["edge"])
        let up = try await firstOutcome(within: .seconds(60)) { () async -> Set<String> in
            let series = (try? await Self.query(stack, #"up{job="rendezvous"} == 1"#)) ?? []
            return Set(series.compactMap { $0.labels["service"] })
        } until: { $0 == expected }
        #expect(up == expected, "Prometheus scrapes only \(up.sorted())")
        let calls = try await firstOutcome(within: .seconds(45)) { () async -> Set<String> in
            let series = (try? await Self.query(stack, "sum by (service) (rpc_server_requests_total) > 0")) ?? []
            let edge = (try? await Self.query(stack, #"sum(edge_responses_total{code="OK"}) > 0"#)) ?? []
            return Set(series.compactMap { $0.labels["service"] }).union(edge.isEmpty ? [] : ["edge"])
        } until: { $0 == expected }
        #expect(calls == expected, "calls counted in Prometheus for \(calls.sorted()) only")
    }

    /// An instant PromQL query through Prometheus' HTTP API: each series' labels and value.
    static func query(_ stack: ContainerStack, _ promql: String) async throws -> [(labels: [String: String], value: Double)] {
        let curl = try await Subprocess.run("/usr/bin/curl", [
            "-sS", "-G", "--data-urlencode", "query=\(promql)", "http://127.0.0.1:\(stack.prometheusPort)/api/v1/query",
        ], timeout: .seconds(10))
        guard let body = try JSONSerialization.jsonObject(with: Data(curl.output.utf8)) as? [String: Any],
              let data = body["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] else {
            throw SubprocessError(message: "Prometheus answered \(curl.output)")
        }
        return result.map { series in
            let value = (series["value"] as? [Any])?.last as? String
            return (series["metric"] as? [String: String] ?? [:], value.flatMap(Double.init) ?? .nan)
        }
    }

    /// Calls `attempt` every half second until `done` holds of its answer or `time` passes; the last answer.
    private func firstOutcome<T: Sendable>(within time: Duration, _ attempt: () async -> T,
                                           until done: (T) -> Bool) async throws -> T {
        let deadline = ContinuousClock.now + time
        var answer = await attempt()
        while !done(answer) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            answer = await attempt()
        }
        return answer
    }
}
