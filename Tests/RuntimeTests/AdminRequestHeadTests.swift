import Runtime
import Testing

@Suite struct AdminRequestHeadTests {
    @Test(arguments: [
        ("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", AdminRequestHead(method: "GET", path: "/metrics", headers: ["host": "x"])),
        ("GET /readyz?verbose=1 HTTP/1.0\r\n\r\n", AdminRequestHead(method: "GET", path: "/readyz", query: "verbose=1")),
        ("\r\nHEAD /healthz HTTP/1.1\r\n\r\n", AdminRequestHead(method: "HEAD", path: "/healthz")),
        ("POST /metrics HTTP/1.1\nContent-Length: 3\n\nabc",
         AdminRequestHead(method: "POST", path: "/metrics", headers: ["content-length": "3"])),
        ("GET /media/v1/blobs/x?expires=1&sig=ab HTTP/1.1\r\nRange:  bytes=0-9 \r\nrange: bytes=5-\r\nIf-None-Match: \"e\"\r\n\r\n",
         AdminRequestHead(method: "GET", path: "/media/v1/blobs/x", query: "expires=1&sig=ab",
                          headers: ["range": "bytes=0-9", "if-none-match": "\"e\""])),
    ])
    func parse_completeHead_keepsQueryAndHeaders(text: String, expected: AdminRequestHead) {
        #expect(AdminRequestHead.parse(Array(text.utf8)) == .complete(expected))
    }

    @Test(arguments: ["", "GET /metrics HTTP/1.1\r\n", "GET /metrics HTTP/1.1\r\nHost: x\r\n"])
    func parse_partialHead_isIncomplete(text: String) {
        #expect(AdminRequestHead.parse(Array(text.utf8)) == .incomplete)
    }

    @Test(arguments: [
        "GET /metrics\r\n\r\n",
        "GET  /metrics HTTP/1.1\r\n\r\n",
        "GET metrics HTTP/1.1\r\n\r\n",
        "GET /metrics HTTP/2.0\r\n\r\n",
        "G(T /metrics HTTP/1.1\r\n\r\n",
        "GET /met\u{1}rics HTTP/1.1\r\n\r\n",
    ])
    func parse_badRequestLine_isMalformed(text: String) {
        #expect(AdminRequestHead.parse(Array(text.utf8)) == .malformed)
    }

    @Test func parse_headOverLimit_isTooLarge() {
        let unterminated = Array("GET / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: 0x61, count: 8 * 1024)
        #expect(AdminRequestHead.parse(unterminated) == .tooLarge)
        let terminatedLate = unterminated + Array("\r\n\r\n".utf8)
        #expect(AdminRequestHead.parse(terminatedLate) == .tooLarge)
    }

    @Test func parse_everySplitOfAHead_isIncompleteUntilTheEnd() {
        let bytes = Array("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        for end in 0..<bytes.count {
            #expect(AdminRequestHead.parse(Array(bytes[..<end])) == .incomplete)
        }
    }
}
