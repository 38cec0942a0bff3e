import Contracts
import Foundation
import InteropServer
@testable import RPC
import Testing
import TestSupport
import Wire

/// gRPC-Web on a service's own port, no edge: stock curl over h2c (prior knowledge) posts
/// hand-made bodies, and the bodies that come back are read byte by byte (PROTOCOL-WEB.md).
@Suite(.serialized)
struct GRPCWebCurlTests {
    typealias Messages = GRPCTesting
    static let origin = "https://app.example.com"

    /// Runs `body` against an in-process interop server allowing `origins`.
    static func withServer(origins: [String] = [origin], _ body: (String) async throws -> Void) async throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        configuration.cors = CORSPolicy(allowedOrigins: origins)
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let port = try server.start()
        do {
            try await body("http://127.0.0.1:\(port)")
        } catch {
            await server.shutdown(gracePeriod: .zero)
            throw error
        }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    static func post(_ base: String, _ method: String, _ body: [UInt8], type: String = "application/grpc-web+proto",
                     headers: [String] = []) async throws -> WebCurl.Response {
        try await WebCurl.request(base + "/grpc.testing.TestService/" + method, http2: true,
                                  headers: ["content-type: \(type)", "x-grpc-web: 1"] + headers, body: body)
    }

    static func trailerFrame(_ text: String) -> [UInt8] { WebBody.frame(Array(text.utf8), flag: 0x80) }

    @Test func unary_handMadeFrame_answersItsMessageThenATrailerFrame() async throws {
        try await Self.withServer { base in
            // SimpleRequest{response_size: 10}: field 2, varint 10.
            let response = try await Self.post(base, "UnaryCall", [0x00, 0, 0, 0, 2, 0x10, 0x0A])
            #expect(response.status == 200)
            #expect(response.httpVersion == "HTTP/2")
            #expect(response.headers["content-type"] == "application/grpc-web+proto")
            #expect(response.headers["grpc-status"] == nil, "the status belongs in the body")
            // SimpleResponse{payload{body: 10 zero bytes}}, then `grpc-status: 0` flagged 0x80.
            let message: [UInt8] = [0x0A, 0x0C, 0x12, 0x0A] + [UInt8](repeating: 0, count: 10)
            #expect(response.body == [0x00, 0, 0, 0, 14] + message + Self.trailerFrame("grpc-status: 0\r\n"))
        }
    }

    @Test func unary_webText_isBase64BothWays() async throws {
        try await Self.withServer { base in
            let request = Messages.SimpleRequest(responseSize: 70_000, payload: Messages.Payload(body: [UInt8](repeating: 7, count: 50_001)))
            let text = Array(Data(WebBody.frame(request.serializedBytes())).base64EncodedString().utf8)
            let response = try await Self.post(base, "UnaryCall", text, type: "application/grpc-web-text")
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/grpc-web-text")
            #expect(response.body.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\n") }, "not base64 text")
            let frames = try #require(WebBody.decodeText(response.body).flatMap(WebBody.frames))
            try #require(frames.count == 2)
            #expect(frames[0].flag == 0)
            #expect(try Messages.SimpleResponse(serializedBytes: frames[0].payload).payload?.body.count == 70_000)
            #expect(frames[1] == WebBody.Frame(flag: 0x80, payload: Array("grpc-status: 0\r\n".utf8)))
        }
    }

    @Test func clientStreaming_textBodyOfPaddedSegments_deliversEveryMessage() async throws {
        try await Self.withServer { base in
            // One padded base64 segment per message, the way a text client flushes.
            let sizes = [27_182, 8, 1_828, 45_904]
            let body = sizes.flatMap { size -> [UInt8] in
                let message = Messages.StreamingInputCallRequest(payload: Messages.Payload(body: [UInt8](repeating: 1, count: size)))
                return Array(Data(WebBody.frame(message.serializedBytes())).base64EncodedString(options: .lineLength76Characters).utf8)
            }
            let response = try await Self.post(base, "StreamingInputCall", body, type: "application/grpc-web-text+proto")
            #expect(response.headers["content-type"] == "application/grpc-web-text+proto")
            let frames = try #require(WebBody.decodeText(response.body).flatMap(WebBody.frames))
            try #require(frames.count == 2, "\(frames)")
            #expect(try Messages.StreamingInputCallResponse(serializedBytes: frames[0].payload).aggregatedPayloadSize == 74_922)
            #expect(WebBody.trailers(frames[1])["grpc-status"] == "0")
        }
    }

    /// The router answers from the request's head. These requests carry no body: a client still
    /// sending one gets RST_STREAM(NO_ERROR) after the complete answer (RFC 9113 §8.1), which
    /// curl 7.88 reports as error 92 although the answer arrived.
    @Test func unknownMethod_statusGoesInATrailerFrame_whilePlainGRPCKeepsTrailersOnly() async throws {
        try await Self.withServer { base in
            let web = try await WebCurl.request(base + "/grpc.testing.Nowhere/Call", http2: true,
                                                headers: ["content-type: application/grpc-web"])
            #expect(web.status == 200)
            #expect(web.headers["content-type"] == "application/grpc-web")
            #expect(web.headers["grpc-status"] == nil)
            let frames = try #require(WebBody.frames(web.body))
            try #require(frames.count == 1)
            #expect(frames[0].flag == 0x80)
            let trailers = WebBody.trailers(frames[0])
            #expect(trailers["grpc-status"] == "12")
            #expect(trailers["grpc-message"] == "method /grpc.testing.Nowhere/Call is not implemented")
            #expect(Self.reason(trailers) == "UNIMPLEMENTED")

            let plain = try await WebCurl.request(base + "/grpc.testing.Nowhere/Call", http2: true,
                                                  headers: ["content-type: application/grpc", "te: trailers"])
            #expect(plain.headers["content-type"] == "application/grpc")
            #expect(plain.headers["grpc-status"] == "12")
            #expect(plain.body.isEmpty)
        }
    }

    @Test func handlerError_carriesMessageDetailsAndTrailingMetadata_inTheTrailerFrame() async throws {
        try await Self.withServer { base in
            let request = Messages.SimpleRequest(responseSize: -1)
            let response = try await Self.post(base, "UnaryCall", WebBody.frame(request.serializedBytes()),
                                               headers: ["x-grpc-test-echo-initial: hello", "x-grpc-test-echo-trailing-bin: CgsKCwoL"])
            #expect(response.headers["x-grpc-test-echo-initial"] == "hello")
            let frames = try #require(WebBody.frames(response.body))
            try #require(frames.count == 1)
            let trailers = WebBody.trailers(frames[0])
            #expect(trailers["grpc-status"] == "3")
            #expect(trailers["grpc-message"] == "response_size must not be negative")
            #expect(Self.reason(trailers) == "INVALID_ARGUMENT")
            #expect(trailers["x-grpc-test-echo-trailing-bin"] == "CgsKCwoL")
        }
    }

    @Test func malformedTextBody_isAProtocolError() async throws {
        try await Self.withServer { base in
            for body in ["AAAA!AAA", "AAAAAA", "A=AA"] {
                let response = try await Self.post(base, "EmptyCall", Array(body.utf8), type: "application/grpc-web-text")
                let frames = try #require(WebBody.decodeText(response.body).flatMap(WebBody.frames), "body \(body)")
                try #require(frames.count == 1)
                let trailers = WebBody.trailers(frames[0])
                #expect(trailers["grpc-status"] == "13", "body \(body)")
                #expect(Self.reason(trailers) == "PROTOCOL_ERROR", "body \(body)")
            }
        }
    }

    @Test func deadline_expiresOnTheServer_withItsStatusInTheTrailerFrame() async throws {
        try await Self.withServer { base in
            let request = Messages.StreamingOutputCallRequest(responseParameters: [.init(size: 1, intervalUs: 5_000_000)])
            let started = ContinuousClock.now
            let response = try await Self.post(base, "StreamingOutputCall", WebBody.frame(request.serializedBytes()),
                                               headers: ["grpc-timeout: 200m"])
            #expect(ContinuousClock.now - started < .seconds(3))
            let frames = try #require(WebBody.frames(response.body))
            try #require(frames.count == 1)
            #expect(WebBody.trailers(frames[0])["grpc-status"] == "4")
        }
    }

    @Test func gzip_requestAndResponse_followGRPCRules() async throws {
        try await Self.withServer { base in
            // expect_compressed makes the server check the request's flag; response_compressed asks
            // for a compressed answer, which it may send only because grpc-accept-encoding allows it.
            let request = Messages.SimpleRequest(responseSize: 20_000, responseCompressed: .init(value: true),
                                                 expectCompressed: .init(value: true))
            let compressed = try Gzip.compress(request.serializedBytes())
            let response = try await Self.post(base, "UnaryCall", WebBody.frame(compressed, flag: 1),
                                               headers: ["grpc-encoding: gzip", "grpc-accept-encoding: gzip"])
            #expect(response.headers["grpc-encoding"] == "gzip")
            let frames = try #require(WebBody.frames(response.body))
            try #require(frames.count == 2)
            #expect(frames[0].flag == 1)
            let message = try Gzip.decompress(frames[0].payload, limit: 1 << 20)
            #expect(try Messages.SimpleResponse(serializedBytes: message).payload?.body.count == 20_000)
            #expect(frames[1].flag == 0x80, "the trailer frame is never compressed")
            #expect(WebBody.trailers(frames[1])["grpc-status"] == "0")

            // A compressed flag without grpc-encoding is refused, as for gRPC.
            let refused = try await Self.post(base, "UnaryCall", WebBody.frame(compressed, flag: 1))
            let refusedFrames = try #require(WebBody.frames(refused.body))
            #expect(refusedFrames.map { WebBody.trailers($0)["grpc-status"] } == ["13"])
        }
    }

    // MARK: CORS

    @Test func preflight_fromAnAllowedOrigin_grantsPostAndTheAskedHeaders() async throws {
        try await Self.withServer { base in
            let response = try await WebCurl.request(base + "/grpc.testing.TestService/UnaryCall", method: "OPTIONS", http2: true, headers: [
                "origin: \(Self.origin)", "access-control-request-method: POST",
                "access-control-request-headers: authorization,content-type,x-grpc-web",
            ])
            #expect(response.status == 204)
            #expect(response.headers["access-control-allow-origin"] == Self.origin)
            #expect(response.headers["access-control-allow-methods"] == "POST, OPTIONS")
            #expect(response.headers["access-control-allow-headers"] == "authorization,content-type,x-grpc-web")
            #expect(response.headers["access-control-allow-credentials"] == nil)
            #expect(response.headers["vary"]?.contains("origin") == true)
        }
    }

    @Test func preflight_fromAnotherOrigin_orWithoutCORSConfigured_isRefused() async throws {
        try await Self.withServer { base in
            let response = try await WebCurl.request(base + "/grpc.testing.TestService/UnaryCall", method: "OPTIONS", http2: true,
                                                     headers: ["origin: https://evil.example.com", "access-control-request-method: POST"])
            #expect(response.status == 403)
            #expect(!response.headers.keys.contains { $0.hasPrefix("access-control-") })
        }
        try await Self.withServer(origins: []) { base in
            let response = try await WebCurl.request(base + "/grpc.testing.TestService/UnaryCall", method: "OPTIONS", http2: true,
                                                     headers: ["origin: \(Self.origin)", "access-control-request-method: POST"])
            #expect(response.status == 403)
            #expect(!response.headers.keys.contains { $0.hasPrefix("access-control-") })
        }
    }

    @Test func webRequest_withOrigin_isAnsweredWithCORSFieldsOnlyWhenAllowed() async throws {
        try await Self.withServer { base in
            let allowed = try await Self.post(base, "EmptyCall", WebBody.frame([]), headers: ["origin: \(Self.origin)"])
            #expect(allowed.headers["access-control-allow-origin"] == Self.origin)
            #expect(allowed.headers["access-control-expose-headers"] == "grpc-status, grpc-message, grpc-status-details-bin")
            let other = try await Self.post(base, "EmptyCall", WebBody.frame([]), headers: ["origin: https://evil.example.com"])
            #expect(WebBody.frames(other.body)?.last.map { WebBody.trailers($0)["grpc-status"] } == "0")
            #expect(!other.headers.keys.contains { $0.hasPrefix("access-control-") })
            // An unknown method is refused from the head, before any call starts (no body: see
            // unknownMethod_…): still readable by the page.
            let refused = try await WebCurl.request(base + "/grpc.testing.Nowhere/Call", http2: true,
                                                    headers: ["content-type: application/grpc-web", "origin: \(Self.origin)"])
            #expect(refused.headers["access-control-allow-origin"] == Self.origin)
        }
        try await Self.withServer(origins: ["*"]) { base in
            let any = try await Self.post(base, "EmptyCall", WebBody.frame([]), headers: ["origin: https://anywhere.example"])
            #expect(any.headers["access-control-allow-origin"] == "*")
        }
    }

    /// The ErrorInfo reason in a `grpc-status-details-bin` field.
    static func reason(_ fields: [String: String]) -> String? {
        guard let text = fields["grpc-status-details-bin"], let bytes = Data(base64Encoded: text) else { return nil }
        var error = RPCError(code: .unknown, message: "")
        error.applyStatusDetails(Array(bytes))
        return error.reason
    }
}
