import Contracts
@testable import RPC
import Testing
import Wire

/// Bytes Python encodes as one message type and Swift decodes as another, whose fields are a
/// subset (same numbers and wire types): every other field is unknown to the Swift type.
struct UnknownFieldsCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// The type Python encodes.
    var protoName: String
    var json: String
    var expectDecodesToValue: @Sendable (_ bytes: [UInt8]) throws -> Void

    var testDescription: String { name }

    init<M: ProtoMessage>(_ name: String, proto protoName: String, json: String, decodesAs value: M) {
        self.name = "\(protoName.split(separator: ".").last ?? "") as \(M.self): \(name)"
        self.protoName = protoName
        self.json = json
        self.expectDecodesToValue = { bytes in
            let decoded = try M(serializedBytes: bytes)
            #expect(decoded == value, "python bytes \(bytes.hexPreview)")
        }
    }
}

extension UnknownFieldsCase {
    typealias T = GRPCTesting

    static let all: [UnknownFieldsCase] = [
        UnknownFieldsCase("every field", proto: "grpc.testing.SimpleResponse", json: """
            {"payload": {"type": 3, "body": "AQID"}, "username": "u", "oauth_scope": "s", "server_id": "id",
             "grpclb_route_type": -1, "hostname": "h"}
            """, decodesAs: T.Empty()),
        UnknownFieldsCase("all but payload", proto: "grpc.testing.SimpleResponse", json: """
            {"payload": {"body": "AQID"}, "username": "u", "oauth_scope": "😀", "server_id": "id",
             "grpclb_route_type": -1, "hostname": "h"}
            """, decodesAs: T.StreamingOutputCallResponse(payload: T.Payload(body: [1, 2, 3]))),
        UnknownFieldsCase("fields 4, 5, 6, 8, 9, 10", proto: "grpc.testing.SimpleRequest", json: """
            {"response_type": -2, "payload": {"body": "AQID"}, "fill_username": true, "fill_oauth_scope": true,
             "response_compressed": {"value": true}, "response_status": {"code": 3, "message": "m"},
             "expect_compressed": {}, "fill_server_id": true, "fill_grpclb_route_type": true}
            """, decodesAs: {
                var message = T.StreamingOutputCallRequest()
                message.responseType = .init(rawValue: -2)
                message.payload = T.Payload(body: [1, 2, 3])
                message.responseStatus = T.EchoStatus(code: 3, message: "m")
                return message
            }()),
        // Field 3 (a Payload) lands in ResponseParameters.compressed (a BoolValue): Payload.type
        // is BoolValue.value's number and wire type, Payload.body is unknown inside it.
        UnknownFieldsCase("unknown field inside a nested message", proto: "grpc.testing.SimpleRequest", json: """
            {"response_type": 3, "response_size": 7, "payload": {"type": 1, "body": "YWJj"}, "fill_server_id": true}
            """, decodesAs: {
                var message = T.ResponseParameters(size: 3, intervalUs: 7)
                message.compressed = T.BoolValue(value: true)
                return message
            }()),
        UnknownFieldsCase("message", proto: "grpc.testing.EchoStatus", json: #"{"code": -5, "message": "gone"}"#,
                          decodesAs: {
                              var message = T.StreamingInputCallResponse()
                              message.aggregatedPayloadSize = -5
                              return message
                          }()),
        UnknownFieldsCase("details", proto: "google.rpc.Status", json: """
            {"code": 9, "message": "full", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
             "reason": "SESSION_FULL", "metadata": {"a": "1"}}]}
            """, decodesAs: T.EchoStatus(code: 9, message: "full")),
        UnknownFieldsCase("service", proto: "grpc.health.v1.HealthCheckRequest", json: #"{"service": "x"}"#,
                          decodesAs: T.Empty()),
        UnknownFieldsCase("status", proto: "grpc.health.v1.HealthCheckResponse", json: #"{"status": "SERVING"}"#,
                          decodesAs: T.Empty()),
        UnknownFieldsCase("an Any of a type Swift does not decode", proto: "google.rpc.Status", json: """
            {"code": 5, "details": [{"@type": "type.googleapis.com/grpc.testing.SimpleResponse",
             "username": "u", "payload": {"body": "AQID"}}]}
            """, decodesAs: {
                var status = StatusMessage()
                status.code = 5
                var any = AnyMessage()
                any.typeURL = "type.googleapis.com/grpc.testing.SimpleResponse"
                var response = T.SimpleResponse()
                response.payload = T.Payload(body: [1, 2, 3])
                response.username = "u"
                any.value = response.serializedBytes()
                status.details = [any]
                return status
            }()),
    ]
}
