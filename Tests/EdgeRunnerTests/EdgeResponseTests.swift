@testable import EdgeRunner
import Testing

/// nginx's `rv_metrics` lines (as its syslog datagrams carry them) read into the labels of
/// `edge_responses_total`, and the bound on method labels.
@Suite struct EdgeResponseTests {
    static let cases: [(String, EdgeResponse?)] = [
        // A unary call answered OK in its trailers.
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 - 0 /rendezvous.identity.v1.Identity/GetAccount",
         EdgeResponse(route: "identity", method: "/rendezvous.identity.v1.Identity/GetAccount", code: "OK")),
        // The edge's own refusal (error_page) or a trailers-only answer: the status in the headers.
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 14 - /rendezvous.media.v1.Media/GetBlob",
         EdgeResponse(route: "media", method: "/rendezvous.media.v1.Media/GetBlob", code: "UNAVAILABLE")),
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 - 13 /grpc.testing.TestService/UnaryCall?x=1",
         EdgeResponse(route: "interop", method: "/grpc.testing.TestService/UnaryCall", code: "INTERNAL")),
        // Paths a client makes up never become a label value.
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 12 - /no.such.Service/Whatever",
         EdgeResponse(route: "unrouted", method: "other", code: "UNIMPLEMENTED")),
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 12 - /rendezvous.identity.v1.DevicesInternal/List",
         EdgeResponse(route: "identity", method: "other", code: "UNIMPLEMENTED")),
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 12 - /rendezvous.elsewhere.v1.X/Y",
         EdgeResponse(route: "unrouted", method: "other", code: "UNIMPLEMENTED")),
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 - 5 /rendezvous.identity.v1.Identity/Get Account",
         EdgeResponse(route: "identity", method: "other", code: "NOT_FOUND")),
        // Signed downloads: no gRPC status, the HTTP class; one label value for every URL.
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 503 - - /media/v1/blobs/4f1c?expires=1&sig=ab",
         EdgeResponse(route: "downloads", method: "/media/v1/blobs/", code: "5xx")),
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 - - /media/v1/blobs/4f1c",
         EdgeResponse(route: "downloads", method: "/media/v1/blobs/", code: "2xx")),
        // A status number outside the spec's is UNKNOWN, not a label of its own.
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 - 99 /rendezvous.discovery.v1.Discovery/Swipe",
         EdgeResponse(route: "discovery", method: "/rendezvous.discovery.v1.Discovery/Swipe", code: "UNKNOWN")),
        // Not ours, or malformed.
        ("<190>Nov 27 21:32:52 other_tag: rv1 200 - 0 /rendezvous.identity.v1.Identity/GetAccount", nil),
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv2 200 - 0 /x", nil),
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 abc - 0 /x", nil),
        ("<190>Nov 27 21:32:52 rv_edge_metrics: rv1 200 -", nil),
    ]

    @Test(arguments: cases)
    func datagram_readsIntoRouteMethodAndCode(_ datagram: String, _ expected: EdgeResponse?) {
        #expect(EdgeResponse(datagram: datagram) == expected)
    }

    @Test func methodsPastTheBound_areCountedAsOther() {
        let metrics = EdgeMetrics(maxMethods: 2)
        for method in ["/a.S/One", "/a.S/Two", "/a.S/Three", "/a.S/One"] {
            metrics.record(EdgeResponse(route: "identity", method: method, code: "OK"))
        }
        let text = String(decoding: metrics.metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"edge_responses_total{route="identity",method="/a.S/One",code="OK"} 2"#), "\(text)")
        #expect(text.contains(#"edge_responses_total{route="identity",method="/a.S/Two",code="OK"} 1"#), "\(text)")
        #expect(text.contains(#"edge_responses_total{route="identity",method="other",code="OK"} 1"#), "\(text)")
        #expect(!text.contains("/a.S/Three"), "\(text)")
    }
}
