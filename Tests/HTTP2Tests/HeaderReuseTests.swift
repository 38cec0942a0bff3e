import HTTP2
import IOLoop
import Testing
import TestSupport

/// A connection reuses the previous request's decoded header fields where the new request's
/// bytes are the same (`HTTP2Connection.previousHeaderBlock`). Each request must still read
/// exactly its own fields: a value or name that changes at the same place, a block that is
/// shorter or longer, empty and non-ASCII values, and a response head in between.
@Suite struct HeaderReuseTests {
    /// Answers each request with its header fields, one `name: value` line each, in order.
    final class EchoHeaders: HTTP2ServerStreamHandler {
        func openStream(_ stream: HTTP2Stream, headers: [HTTP2Header]) -> any HTTP2StreamDelegate {
            let lines = headers.map { "\($0.name): \($0.value)\n" }.joined()
            stream.send(headers: [HTTP2Header(":status", "200"), HTTP2Header("x-echo-count", String(headers.count))],
                        data: Array(lines.utf8), end: .endStream)
            return DiscardingStreamDelegate(stream: stream)
        }
    }

    @Test func eachRequestReadsItsOwnFields_whenTheConnectionsPreviousOnesDiffer() async throws {
        let server = HTTP2Server(port: 0, group: EventLoopGroup.shared, handler: EchoHeaders())
        try server.start()
        let connection = try await HTTP2Client.connect(host: "127.0.0.1", port: server.port, loop: EventLoopGroup.shared.next())
        let base = [HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "http"), HTTP2Header(":path", "/a.B/C"),
                    HTTP2Header(":authority", "127.0.0.1:\(server.port)")]
        let extras: [[HTTP2Header]] = [
            [HTTP2Header("x-a", "one"), HTTP2Header("x-b", "a value longer than fifteen bytes")],
            [HTTP2Header("x-a", "one"), HTTP2Header("x-b", "a value longer than fifteen bytes")],  // all reused
            [HTTP2Header("x-a", "two"), HTTP2Header("x-b", "a value longer than fifteen bytez")],  // values differ
            [HTTP2Header("x-c", "two"), HTTP2Header("x-b", "a value longer than fifteen bytez")],  // a name differs
            [HTTP2Header("x-a", "")],  // shorter, and empty
            [HTTP2Header("x-a", ""), HTTP2Header("x-d", "caf\u{E9} \u{1F600}"), HTTP2Header("x-e", "three")],  // longer
            [HTTP2Header("x-d", "caf\u{E9} \u{1F600}")],
            [HTTP2Header("x-d", "caf\u{E9} \u{1F601}")],  // the last byte differs
        ]
        for (index, extra) in extras.enumerated() {
            let sent = base + extra
            let response = try await connection.request(sent, body: [])
            #expect(response.status == 200)
            let expected = sent.map { "\($0.name): \($0.value)\n" }.joined()
            #expect(String(decoding: response.body, as: UTF8.self) == expected, "request \(index)")
        }
        // Another path on the same connection, then the first path again.
        var other = base
        other[2] = HTTP2Header(":path", "/a.B/Other")
        let response = try await connection.request(other, body: [])
        #expect(String(decoding: response.body, as: UTF8.self).contains(":path: /a.B/Other\n"))
        let again = try await connection.request(base, body: [])
        #expect(String(decoding: again.body, as: UTF8.self).contains(":path: /a.B/C\n"))
        connection.closeSoon()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
