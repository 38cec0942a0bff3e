import Contracts
import Foundation

/// Values of every grpc.testing message (proto-docs/grpc/testing/messages.proto, empty.proto):
/// all fields unset, all set, extremes, unknown and negative enum numbers, empty and long bytes
/// (one-, two- and three-byte length prefixes), non-BMP strings, nested messages present but
/// empty, repeated fields with zero, one and many elements.
extension ConformanceCase {
    typealias T = GRPCTesting

    static let grpcTesting: [ConformanceCase] =
        empty + boolValue + payload + echoStatus + simpleRequest + simpleResponse
        + streamingInput + responseParameters + streamingOutput

    /// Non-BMP characters (4-byte UTF-8), a combining sequence, CJK, a NUL and JSON escapes.
    static let unicodeText = "héllo 😀 𝄞 日本語 e\u{301} \u{0} \"quoted\" \\ tab\t"
    /// `unicodeText` as a JSON string literal.
    static let unicodeJSON = #""héllo 😀 𝄞 日本語 e\#u{301} \u0000 \"quoted\" \\ tab\t""#

    /// `count` bytes covering every byte value.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    static let empty = [
        ConformanceCase("default", T.Empty(), proto: "grpc.testing.Empty", json: "{}"),
    ]

    static let boolValue = [
        ConformanceCase("default", T.BoolValue(), proto: "grpc.testing.BoolValue", json: "{}"),
        ConformanceCase("true", T.BoolValue(value: true), proto: "grpc.testing.BoolValue", json: #"{"value": true}"#),
    ]

    static let payload: [ConformanceCase] = {
        func payload(_ type: Int32, _ body: [UInt8]) -> T.Payload {
            var payload = T.Payload(body: body)
            payload.type = .init(rawValue: type)
            return payload
        }
        let proto = "grpc.testing.Payload"
        return [
            ConformanceCase("default", T.Payload(), proto: proto, json: "{}"),
            ConformanceCase("unknownTypeShortBody", payload(99, [0, 1, 0xFF]), proto: proto,
                            json: #"{"type": 99, "body": "AAH/"}"#),
            ConformanceCase("minTypeOnly", payload(.min, []), proto: proto, json: #"{"type": -2147483648}"#),
            ConformanceCase("oneZeroByte", payload(0, [0]), proto: proto, json: #"{"body": "AA=="}"#),
            ConformanceCase("negativeType300Bytes", payload(-1, pattern(300)), proto: proto,
                            json: #"{"type": -1, "body": "\#(base64(pattern(300)))"}"#),
            ConformanceCase("maxType70000Bytes", payload(.max, pattern(70_000)), proto: proto,
                            json: #"{"type": 2147483647, "body": "\#(base64(pattern(70_000)))"}"#),
        ]
    }()

    static let echoStatus: [ConformanceCase] = {
        let proto = "grpc.testing.EchoStatus"
        return [
            ConformanceCase("default", T.EchoStatus(), proto: proto, json: "{}"),
            ConformanceCase("minCode", T.EchoStatus(code: .min, message: ""), proto: proto,
                            json: #"{"code": -2147483648}"#),
            ConformanceCase("maxCodeUnicode", T.EchoStatus(code: .max, message: unicodeText), proto: proto,
                            json: #"{"code": 2147483647, "message": \#(unicodeJSON)}"#),
            ConformanceCase("negativeCodeLongMessage",
                            T.EchoStatus(code: -1, message: String(repeating: "𐍈", count: 100)), proto: proto,
                            json: #"{"code": -1, "message": "\#(String(repeating: "𐍈", count: 100))"}"#),
            ConformanceCase("messageOnly", T.EchoStatus(code: 0, message: "a"), proto: proto,
                            json: #"{"message": "a"}"#),
        ]
    }()

    static let simpleRequest: [ConformanceCase] = {
        let proto = "grpc.testing.SimpleRequest"
        var all = T.SimpleRequest()
        all.responseType = .init(rawValue: 99)
        all.responseSize = .max
        all.payload = T.Payload(body: [1, 2, 3])
        all.fillUsername = true
        all.fillOauthScope = true
        all.responseCompressed = T.BoolValue(value: true)
        all.responseStatus = T.EchoStatus(code: 2, message: "msg 😀")
        all.expectCompressed = T.BoolValue(value: false)
        all.fillServerID = true
        all.fillGrpclbRouteType = true

        var negative = T.SimpleRequest()
        negative.responseType = .init(rawValue: -1)
        negative.responseSize = .min
        negative.payload = T.Payload()
        negative.responseStatus = T.EchoStatus()

        // A nested message longer than 127 bytes: its length prefix takes two bytes.
        var large = T.SimpleRequest()
        large.responseSize = 1
        large.payload = T.Payload(body: pattern(200))
        large.responseStatus = T.EchoStatus(code: 13, message: String(repeating: "x", count: 20_000))

        var lastBool = T.SimpleRequest()
        lastBool.fillServerID = true

        var emptyBools = T.SimpleRequest()
        emptyBools.responseCompressed = T.BoolValue()
        emptyBools.expectCompressed = T.BoolValue()

        return [
            ConformanceCase("default", T.SimpleRequest(), proto: proto, json: "{}"),
            ConformanceCase("allFieldsSet", all, proto: proto, json: """
                {"response_type": 99, "response_size": 2147483647, "payload": {"body": "AQID"},
                 "fill_username": true, "fill_oauth_scope": true, "response_compressed": {"value": true},
                 "response_status": {"code": 2, "message": "msg 😀"}, "expect_compressed": {},
                 "fill_server_id": true, "fill_grpclb_route_type": true}
                """),
            ConformanceCase("negativesAndEmptyNested", negative, proto: proto, json: """
                {"response_type": -1, "response_size": -2147483648, "payload": {}, "response_status": {}}
                """),
            ConformanceCase("longNestedMessages", large, proto: proto, json: """
                {"response_size": 1, "payload": {"body": "\(base64(pattern(200)))"},
                 "response_status": {"code": 13, "message": "\(String(repeating: "x", count: 20_000))"}}
                """),
            ConformanceCase("fillServerIDOnly", lastBool, proto: proto, json: #"{"fill_server_id": true}"#),
            ConformanceCase("emptyBoolValues", emptyBools, proto: proto,
                            json: #"{"response_compressed": {}, "expect_compressed": {}}"#),
        ]
    }()

    static let simpleResponse: [ConformanceCase] = {
        let proto = "grpc.testing.SimpleResponse"
        var all = T.SimpleResponse()
        var payload = T.Payload(body: [0xDE, 0xAD, 0xBE, 0xEF])
        payload.type = .init(rawValue: 99)
        all.payload = payload
        all.username = "user@example.com"
        all.oauthScope = "😀 scope"
        all.serverID = "server-𐍈"
        all.grpclbRouteType = -2
        all.hostname = "host.example"

        var long = T.SimpleResponse()
        long.payload = T.Payload()
        long.grpclbRouteType = .max
        long.username = String(repeating: "é", count: 300)

        var minRoute = T.SimpleResponse()
        minRoute.grpclbRouteType = .min

        var unicode = T.SimpleResponse()
        unicode.hostname = unicodeText

        return [
            ConformanceCase("default", T.SimpleResponse(), proto: proto, json: "{}"),
            ConformanceCase("allFieldsSet", all, proto: proto, json: """
                {"payload": {"type": 99, "body": "3q2+7w=="}, "username": "user@example.com",
                 "oauth_scope": "😀 scope", "server_id": "server-𐍈", "grpclb_route_type": -2,
                 "hostname": "host.example"}
                """),
            ConformanceCase("emptyPayloadLongUsername", long, proto: proto, json: """
                {"payload": {}, "grpclb_route_type": 2147483647, "username": "\(String(repeating: "é", count: 300))"}
                """),
            ConformanceCase("minRouteType", minRoute, proto: proto, json: #"{"grpclb_route_type": -2147483648}"#),
            ConformanceCase("unicodeHostname", unicode, proto: proto, json: #"{"hostname": \#(unicodeJSON)}"#),
        ]
    }()

    static let streamingInput: [ConformanceCase] = {
        let request = "grpc.testing.StreamingInputCallRequest"
        let response = "grpc.testing.StreamingInputCallResponse"
        var both = T.StreamingInputCallRequest()
        both.payload = T.Payload(body: pattern(27_182))
        both.expectCompressed = T.BoolValue(value: true)
        var empties = T.StreamingInputCallRequest()
        empties.payload = T.Payload()
        empties.expectCompressed = T.BoolValue()
        func size(_ value: Int32) -> T.StreamingInputCallResponse {
            var message = T.StreamingInputCallResponse()
            message.aggregatedPayloadSize = value
            return message
        }
        return [
            ConformanceCase("default", T.StreamingInputCallRequest(), proto: request, json: "{}"),
            ConformanceCase("bothSet", both, proto: request, json: """
                {"payload": {"body": "\(base64(pattern(27_182)))"}, "expect_compressed": {"value": true}}
                """),
            ConformanceCase("bothPresentButEmpty", empties, proto: request,
                            json: #"{"payload": {}, "expect_compressed": {}}"#),
            ConformanceCase("default", T.StreamingInputCallResponse(), proto: response, json: "{}"),
            ConformanceCase("one", size(1), proto: response, json: #"{"aggregated_payload_size": 1}"#),
            ConformanceCase("max", size(.max), proto: response, json: #"{"aggregated_payload_size": 2147483647}"#),
            ConformanceCase("min", size(.min), proto: response, json: #"{"aggregated_payload_size": -2147483648}"#),
        ]
    }()

    static let responseParameters: [ConformanceCase] = {
        let proto = "grpc.testing.ResponseParameters"
        var all = T.ResponseParameters(size: .max, intervalUs: .min)
        all.compressed = T.BoolValue(value: true)
        var emptyCompressed = T.ResponseParameters(size: -1)
        emptyCompressed.compressed = T.BoolValue()
        return [
            ConformanceCase("default", T.ResponseParameters(), proto: proto, json: "{}"),
            ConformanceCase("allFieldsSet", all, proto: proto, json: """
                {"size": 2147483647, "interval_us": -2147483648, "compressed": {"value": true}}
                """),
            ConformanceCase("emptyCompressed", emptyCompressed, proto: proto,
                            json: #"{"size": -1, "compressed": {}}"#),
            ConformanceCase("intervalOnly", T.ResponseParameters(size: 0, intervalUs: 1_000_000), proto: proto,
                            json: #"{"interval_us": 1000000}"#),
        ]
    }()

    static let streamingOutput: [ConformanceCase] = {
        let request = "grpc.testing.StreamingOutputCallRequest"
        let response = "grpc.testing.StreamingOutputCallResponse"

        var one = T.StreamingOutputCallRequest()
        one.responseParameters = [T.ResponseParameters()]

        var all = T.StreamingOutputCallRequest()
        all.responseType = .init(rawValue: 99)
        var compressed = T.ResponseParameters(size: 31_415, intervalUs: 10)
        compressed.compressed = T.BoolValue(value: false)
        all.responseParameters = [T.ResponseParameters(size: 1), T.ResponseParameters(), compressed,
                                  T.ResponseParameters(size: .min, intervalUs: .max)]
        all.payload = T.Payload(body: pattern(1_000))
        all.responseStatus = T.EchoStatus(code: 7, message: "denied 𝄞")

        var many = T.StreamingOutputCallRequest()
        many.responseParameters = (0..<200).map { T.ResponseParameters(size: Int32($0) * 1_000 - 50_000) }
        let manyJSON = (0..<200).map { $0 * 1_000 - 50_000 }
            .map { $0 == 0 ? "{}" : #"{"size": \#($0)}"# }.joined(separator: ", ")

        var statusOnly = T.StreamingOutputCallRequest()
        statusOnly.responseType = .init(rawValue: .min)
        statusOnly.responseStatus = T.EchoStatus(code: .max, message: unicodeText)

        var bigPayload = T.Payload(body: pattern(1_000))
        bigPayload.type = .init(rawValue: 5)
        return [
            ConformanceCase("default", T.StreamingOutputCallRequest(), proto: request, json: "{}"),
            ConformanceCase("oneEmptyParameter", one, proto: request, json: #"{"response_parameters": [{}]}"#),
            ConformanceCase("allFieldsSet", all, proto: request, json: """
                {"response_type": 99,
                 "response_parameters": [{"size": 1}, {}, {"size": 31415, "interval_us": 10, "compressed": {}},
                                         {"size": -2147483648, "interval_us": 2147483647}],
                 "payload": {"body": "\(base64(pattern(1_000)))"},
                 "response_status": {"code": 7, "message": "denied 𝄞"}}
                """),
            ConformanceCase("200Parameters", many, proto: request, json: #"{"response_parameters": [\#(manyJSON)]}"#),
            ConformanceCase("minTypeAndStatus", statusOnly, proto: request, json: """
                {"response_type": -2147483648, "response_status": {"code": 2147483647, "message": \(unicodeJSON)}}
                """),
            ConformanceCase("default", T.StreamingOutputCallResponse(), proto: response, json: "{}"),
            ConformanceCase("emptyPayload", T.StreamingOutputCallResponse(payload: T.Payload()), proto: response,
                            json: #"{"payload": {}}"#),
            ConformanceCase("payload", T.StreamingOutputCallResponse(payload: bigPayload), proto: response,
                            json: #"{"payload": {"type": 5, "body": "\#(base64(pattern(1_000)))"}}"#),
        ]
    }()
}
