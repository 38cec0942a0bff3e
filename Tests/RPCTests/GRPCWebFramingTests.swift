import Foundation
import HTTP2
@testable import RPC
import Testing

/// gRPC-Web's pieces without I/O: which content types are whose, the trailer frame's bytes, the
/// `-text` request decoder, and the CORS answers.
@Suite struct GRPCWebFramingTests {
    static let contentTypes: [(String, GRPCWireFormat?, String?)] = [
        ("application/grpc", .grpc, "application/grpc"),
        ("application/grpc+proto", .grpc, "application/grpc"),
        ("application/grpc; charset=utf-8", .grpc, "application/grpc"),
        ("application/grpc-web", .web, "application/grpc-web"),
        ("application/grpc-web+proto", .web, "application/grpc-web+proto"),
        ("Application/GRPC-Web+Proto", .web, "application/grpc-web+proto"),
        ("application/grpc-web-text", .webText, "application/grpc-web-text"),
        ("application/grpc-web-text+proto; charset=utf-8", .webText, "application/grpc-web-text+proto"),
        ("application/grpcx", nil, nil),
        ("application/grpc-webx", nil, nil),
        ("application/grpc-web-textual", nil, nil),
        ("application/json", nil, nil),
        ("", nil, nil),
    ]

    @Test(arguments: contentTypes)
    func wireFormat_ofContentType(value: String, format: GRPCWireFormat?, responseType: String?) {
        let parsed = GRPCContentType.wireFormat(of: value)
        #expect(parsed?.format == format)
        #expect(parsed?.responseType == responseType)
        #expect(GRPCContentType.matches(value) == (format == .grpc))
    }

    @Test func trailerFrame_isFlaggedLengthPrefixedHeaderLines() {
        let frame = ResponseFraming.trailerFrame([HTTP2Header("grpc-status", "3"), HTTP2Header("grpc-message", "bad%20thing"),
                                                  HTTP2Header("x-trace-bin", "AAE=")])
        let block = Array("grpc-status: 3\r\ngrpc-message: bad%20thing\r\nx-trace-bin: AAE=\r\n".utf8)
        #expect(frame == [0x80, 0, 0, 0, UInt8(block.count)] + block)
    }

    @Test func grpcFraming_endsWithHTTP2Trailers_webWithABodyFrame() {
        let status = [HTTP2Header("grpc-status", "0")]
        let grpc = ResponseFraming.grpc.ending(status)
        #expect(grpc.data.isEmpty)
        guard case .trailers(let trailers) = grpc.end else { Issue.record("no trailers"); return }
        #expect(trailers == status)

        let web = ResponseFraming(format: .web, contentType: "application/grpc-web+proto", extraHeaders: [])
        #expect(web.ending(status).data == ResponseFraming.trailerFrame(status))
        guard case .endStream = web.ending(status).end else { Issue.record("no END_STREAM"); return }
        #expect(web.head()[first: "content-type"] == "application/grpc-web+proto")
        #expect(ResponseFraming.grpc.head()[first: "content-type"] == "application/grpc")

        let text = ResponseFraming(format: .webText, contentType: "application/grpc-web-text", extraHeaders: [])
        #expect(text.ending(status).data == Array(Data(ResponseFraming.trailerFrame(status)).base64EncodedString().utf8))
        #expect(text.body([1, 2, 3, 4]) == Array("AQIDBA==".utf8))
    }

    /// Three frames sent as three padded segments, the body split at every offset.
    @Test func textDecoder_paddedSegmentsSplitAnywhere_decodeToTheFrames() throws {
        let frames: [[UInt8]] = [[0, 0, 0, 0, 1, 0x41], [0, 0, 0, 0, 2, 0x42, 0x43], [0, 0, 0, 0, 0]]
        let body = Array(frames.map { Data($0).base64EncodedString() }.joined().utf8)
        #expect(body.contains(UInt8(ascii: "=")))
        for split in 0...body.count {
            var decoder = WebTextDecoder()
            var out: [UInt8] = []
            body[..<split].withUnsafeBytes { out += (try? decoder.decode($0)) ?? [0xFF] }
            body[split...].withUnsafeBytes { out += (try? decoder.decode($0)) ?? [0xFF] }
            #expect(throws: Never.self) { try decoder.finish() }
            #expect(out == frames.flatMap { $0 }, "split at \(split)")
        }
    }

    @Test func textDecoder_skipsLineBreaks() throws {
        var decoder = WebTextDecoder()
        let out = try Array("AAEC\r\nAw==\n".utf8).withUnsafeBytes { try decoder.decode($0) }
        #expect(out == [0, 1, 2, 3])
        try decoder.finish()
    }

    @Test(arguments: ["AA!A", "A=AA", "=AAA", "AAAAA===", "ÿÿÿÿ"])
    func textDecoder_badBase64_throws(text: String) {
        var decoder = WebTextDecoder()
        #expect(throws: RPCError.self) {
            _ = try Array(text.utf8).withUnsafeBytes { try decoder.decode($0) }
            try decoder.finish()
        }
    }

    @Test func textDecoder_endInsideAGroup_throwsAtFinish() throws {
        var decoder = WebTextDecoder()
        let out = try Array("AAECAw".utf8).withUnsafeBytes { try decoder.decode($0) }
        #expect(out == [0, 1, 2])
        #expect(throws: RPCError.self) { try decoder.finish() }
    }

    // MARK: CORS

    static func preflight(_ policy: CORSPolicy, origin: String?, headers: String? = nil) -> [HTTP2Header] {
        var request = [HTTP2Header(":method", "OPTIONS"), HTTP2Header("access-control-request-method", "POST")]
        if let origin { request.append(HTTP2Header("origin", origin)) }
        if let headers { request.append(HTTP2Header("access-control-request-headers", headers)) }
        return policy.preflightResponse(to: request)
    }

    @Test func cors_listedOrigin_isAllowedAndEchoed() {
        let policy = CORSPolicy(allowedOrigins: ["https://App.example.com", "http://localhost:3000"])
        #expect(policy.allowOrigin(for: "https://app.example.com") == "https://app.example.com")
        #expect(policy.allowOrigin(for: "http://localhost:3000") == "http://localhost:3000")
        #expect(policy.allowOrigin(for: "https://app.example.com.evil.test") == nil)
        #expect(policy.allowOrigin(for: "http://app.example.com") == nil)
        #expect(policy.allowOrigin(for: nil) == nil)
        let response = Self.preflight(policy, origin: "https://app.example.com", headers: "authorization, content-type")
        #expect(response[first: ":status"] == "204")
        #expect(response[first: "access-control-allow-origin"] == "https://app.example.com")
        #expect(response[first: "access-control-allow-headers"] == "authorization, content-type")
        #expect(response[first: "access-control-allow-credentials"] == nil)
        #expect(Self.preflight(policy, origin: "https://app.example.com")[first: "access-control-allow-headers"]
            == CORSPolicy.defaultAllowedHeaders)
        #expect(policy.responseHeaders(origin: "https://app.example.com")
            == [HTTP2Header("access-control-allow-origin", "https://app.example.com"),
                HTTP2Header("access-control-expose-headers", "grpc-status, grpc-message, grpc-status-details-bin"),
                HTTP2Header("vary", "origin")])
    }

    @Test func cors_star_allowsAnyOrigin() {
        let policy = CORSPolicy(allowedOrigins: ["*"])
        #expect(policy.allowOrigin(for: "https://anything.test") == "*")
        #expect(policy.responseHeaders(origin: "https://anything.test")[first: "access-control-allow-origin"] == "*")
        #expect(policy.responseHeaders(origin: nil).isEmpty)
    }

    @Test func cors_unlistedOrNone_isRefused() {
        #expect(Self.preflight(CORSPolicy(), origin: "https://app.example.com")[first: ":status"] == "403")
        #expect(CORSPolicy().responseHeaders(origin: "https://app.example.com").isEmpty)
        let policy = CORSPolicy(allowedOrigins: ["https://app.example.com"])
        #expect(Self.preflight(policy, origin: "https://evil.test") == [HTTP2Header(":status", "403")])
        #expect(Self.preflight(policy, origin: nil) == [HTTP2Header(":status", "405")])
    }
}
