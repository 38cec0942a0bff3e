import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// The edge's own metrics, as Prometheus scrapes them from rendezvous-edge in the edge's image:
/// every response counted by route, method and gRPC status, an upstream that is down as
/// UNAVAILABLE (what the EdgeAvailabilityBudgetBurn alert counts).
extension EdgeTests {
    /// The value of `edge_responses_total` with exactly these labels in a scrape, 0 when absent.
    static func responses(_ scrape: String, route: String, method: String, code: String) -> Double {
        let labels = ["route": route, "method": method, "code": code]
        for line in scrape.split(separator: "\n") where line.hasPrefix("edge_responses_total{") {
            guard let close = line.firstIndex(of: "}"), let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces))
            else { continue }
            let inside = line[line.index(line.startIndex, offsetBy: "edge_responses_total{".count)..<close]
            var found: [String: String] = [:]
            for pair in inside.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { found[String(parts[0])] = String(parts[1].dropFirst().dropLast()) }
            }
            if found == labels { return value }
        }
        return 0
    }

    /// Scrapes /metrics until `predicate` holds (a response is counted once nginx has logged it,
    /// after the call ended), at most 5 s; the last scrape.
    static func scrapeMetrics(_ edge: NginxEdge, until predicate: (String) -> Bool) async throws -> String {
        let port = try #require(edge.metricsPort)
        let deadline = ContinuousClock.now + .seconds(5)
        var body = ""
        while ContinuousClock.now < deadline {
            body = try await HTTPProbe.get("/metrics", port: port).body
            if predicate(body) { return body }
            try await Task.sleep(for: .milliseconds(50))
        }
        return body
    }

    @Test func metrics_countEveryResponse_byRouteMethodAndCode_anUpstreamDownAsUnavailable() async throws {
        let identity = try await Self.startIdentity()
        var options = NginxEdge.Options(upstreams: ["identity": [identity.port]])
        options.metrics = true
        let edge = try await NginxEdge.start(options)
        defer { edge.stop() }
        let client = RPCClient(host: "127.0.0.1", port: edge.port)
        defer { client.close() }
        func code(_ call: () async throws -> Void) async -> StatusCode {
            do {
                try await call()
                return .ok
            } catch {
                return (error as? RPCError)?.code ?? .unknown
            }
        }

        let keys = "/rendezvous.identity.v1.Identity/GetSigningKeys"
        for _ in 0..<3 {
            #expect(await code { 
                _ = try await client.unary(path: keys, request: Identity.GetSigningKeysRequest(), as: Identity.SigningKeySet.self)
             } == .ok)
        }
        // Media was not started: its upstream is down, the edge answers UNAVAILABLE.
        let getBlob = "/rendezvous.media.v1.Media/GetBlob"
        for _ in 0..<2 {
            #expect(await code {
                _ = try await client.unary(path: getBlob, request: Media.GetBlobRequest(), as: Media.Blob.self)
            } == .unavailable)
        }
        // A path a client makes up is counted without it (no label value a client chooses).
        #expect(await code {
            _ = try await client.unary(path: "/no.such.Service/Rv\(UInt32.random(in: 0...UInt32.max))",
                                       request: Media.GetBlobRequest(), as: Media.Blob.self)
        } == .unimplemented)

        let scrape = try await Self.scrapeMetrics(edge) { body in
            Self.responses(body, route: "identity", method: keys, code: "OK") == 3
                && Self.responses(body, route: "media", method: getBlob, code: "UNAVAILABLE") == 2
                && Self.responses(body, route: "unrouted", method: "other", code: "UNIMPLEMENTED") == 1
        }
        #expect(Self.responses(scrape, route: "identity", method: keys, code: "OK") == 3, "\(scrape)")
        #expect(Self.responses(scrape, route: "media", method: getBlob, code: "UNAVAILABLE") == 2, "\(scrape)")
        #expect(Self.responses(scrape, route: "unrouted", method: "other", code: "UNIMPLEMENTED") == 1, "\(scrape)")
        #expect(!scrape.contains("/no.such.Service/"), "\(scrape)")
        #expect(try await HTTPProbe.get("/readyz", port: try #require(edge.metricsPort)).status == 200)
        await identity.stop()
    }
}
