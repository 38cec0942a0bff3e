import HTTP2
import IOLoop
import Testing

/// Header fields marked not to be indexed (`HTTP2Header.isIndexed`) go out as literals and
/// leave the HPACK table as it was, while repeated indexed ones are stored once.
@Suite struct HeaderIndexingTests {
    static func head(port: Int, _ extra: HTTP2Header) -> [HTTP2Header] {
        [HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "http"), HTTP2Header(":path", "/no.Such/Method"),
         HTTP2Header(":authority", "127.0.0.1:\(port)"), HTTP2Header("content-type", "application/grpc"),
         HTTP2Header("te", "trailers"), extra]
    }

    @Test func perCallValues_markedNotIndexed_leaveTheTableAsItWas_whileIndexedOnesFillIt() async throws {
        let server = try TestServer()
        let connection = try await HTTP2Client.connect(host: "127.0.0.1", port: server.port, loop: EventLoopGroup.shared.next())
        defer { connection.closeSoon() }
        _ = try await connection.request(Self.head(port: server.port, HTTP2Header("x-request-id", "first", indexed: false)), body: [])
        let afterFirst = await connection.encoderTableSize()
        for call in 0..<30 {
            let response = try await connection.request(
                Self.head(port: server.port, HTTP2Header("x-request-id", "request-\(call)", indexed: false)), body: [])
            #expect(response.status == 200)
        }
        #expect(await connection.encoderTableSize() == afterFirst)

        // The control: the same values, indexed, each take a table entry (32 bytes of overhead,
        // RFC 7541 §4.1, plus name and value) until the 4,096-byte table evicts.
        for call in 0..<10 {
            _ = try await connection.request(
                Self.head(port: server.port, HTTP2Header("x-request-id", "request-\(call)")), body: [])
        }
        #expect(await connection.encoderTableSize() >= afterFirst + 10 * (32 + 12 + 9))
        await server.stop()
    }
}
