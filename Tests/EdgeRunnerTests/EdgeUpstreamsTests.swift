@testable import EdgeRunner
import Testing

/// The edge's upstream names as rendezvous-edge hands them to nginx: resolved to every address
/// they have, marked down when they have none, addresses left alone.
@Suite struct EdgeUpstreamsTests {
    static let config = """
        http {
            upstream identity { server identity:7101; keepalive 32; }
            upstream messaging { server messaging:7103; keepalive 32; }
            upstream media_downloads { server media:7205; }
            upstream local { server 127.0.0.1:7101; server 127.0.0.1:7111; keepalive 32; }
            server { location /rendezvous.identity. { grpc_pass grpc://identity; } }
        }
        """

    static let answers = ["identity": ["10.89.0.5"], "messaging": ["10.89.0.7", "10.89.0.8"], "media": []]

    @Test func names_becomeEveryAddress_orADownServer_addressesStay() {
        let rendered = EdgeUpstreams.render(Self.config) { Self.answers[$0] ?? [] }
        #expect(rendered == """
            http {
                upstream identity { server 10.89.0.5:7101; keepalive 32; }
                upstream messaging { server 10.89.0.7:7103; server 10.89.0.8:7103; keepalive 32; }
                upstream media_downloads { server 127.0.0.1:1 down; }
                upstream local { server 127.0.0.1:7101; server 127.0.0.1:7111; keepalive 32; }
                server { location /rendezvous.identity. { grpc_pass grpc://identity; } }
            }
            """)
    }

    @Test func aChangedAnswer_changesTheConfiguration_aSameOneDoesNot() {
        let before = EdgeUpstreams.render(Self.config) { Self.answers[$0] ?? [] }
        let same = EdgeUpstreams.render(Self.config) { Self.answers[$0] ?? [] }
        let restarted = EdgeUpstreams.render(Self.config) { $0 == "identity" ? ["10.89.0.9"] : Self.answers[$0] ?? [] }
        #expect(before == same)
        #expect(restarted != before)
        #expect(restarted.contains("server 10.89.0.9:7101;"))
    }

    @Test func aServersParameters_goWithEveryAddress() {
        let config = "upstream messaging { server messaging:7103 max_fails=1 fail_timeout=3s; server 127.0.0.1:1 down; }"
        let rendered = EdgeUpstreams.render(config) { Self.answers[$0] ?? [] }
        #expect(rendered == "upstream messaging { server 10.89.0.7:7103 max_fails=1 fail_timeout=3s; "
                + "server 10.89.0.8:7103 max_fails=1 fail_timeout=3s; server 127.0.0.1:1 down; }")
        let gone = EdgeUpstreams.render(config) { _ in [] }
        #expect(gone == "upstream messaging { server 127.0.0.1:1 down; server 127.0.0.1:1 down; }")
    }

    @Test func theSystemResolver_answersLocalhost_andNothingForAnUnknownName() {
        #expect(EdgeUpstreams.systemResolve("localhost") == ["127.0.0.1"])
        #expect(EdgeUpstreams.systemResolve("rv-no-such-host.invalid").isEmpty)
    }
}
