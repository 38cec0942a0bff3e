// StatusMessage, ErrorInfoMessage and RPCError.statusDetailsBytes() are internal to RPC;
// debug builds (`swift build`, `make test`) compile it with testing enabled.
import Contracts
@testable import RPC
import Testing
import Wire

/// Values of the messages RPC encodes itself: grpc.health.v1 (proto-docs/grpc/health/v1/health.proto)
/// and google.rpc.Status carrying google.rpc.ErrorInfo (proto-docs/google/rpc/).
extension ConformanceCase {
    static let rpc = health + errorInfo + status + statusDetails

    static let health: [ConformanceCase] = {
        let request = "grpc.health.v1.HealthCheckRequest"
        let response = "grpc.health.v1.HealthCheckResponse"
        func status(_ raw: Int32) -> HealthCheckResponse {
            HealthCheckResponse(status: .init(rawValue: raw))
        }
        return [
            ConformanceCase("default", HealthCheckRequest(), proto: request, json: "{}"),
            ConformanceCase("service", HealthCheckRequest(service: "grpc.testing.TestService"), proto: request,
                            json: #"{"service": "grpc.testing.TestService"}"#),
            ConformanceCase("unicodeService", HealthCheckRequest(service: unicodeText), proto: request,
                            json: #"{"service": \#(unicodeJSON)}"#),
            ConformanceCase("default", HealthCheckResponse(), proto: response, json: "{}"),
            ConformanceCase("serving", HealthCheckResponse(status: .serving), proto: response,
                            json: #"{"status": "SERVING"}"#),
            ConformanceCase("notServing", HealthCheckResponse(status: .notServing), proto: response,
                            json: #"{"status": "NOT_SERVING"}"#),
            ConformanceCase("serviceUnknown", HealthCheckResponse(status: .serviceUnknown), proto: response,
                            json: #"{"status": "SERVICE_UNKNOWN"}"#),
            ConformanceCase("unknownNumber", status(99), proto: response, json: #"{"status": 99}"#),
            ConformanceCase("negativeNumber", status(-7), proto: response, json: #"{"status": -7}"#),
        ]
    }()

    static func errorInfo(_ reason: String, _ domain: String, _ metadata: [String: String]) -> ErrorInfoMessage {
        var info = ErrorInfoMessage()
        info.reason = reason
        info.domain = domain
        info.metadata = metadata
        return info
    }

    static func any(_ typeURL: String, _ value: [UInt8]) -> AnyMessage {
        var any = AnyMessage()
        any.typeURL = typeURL
        any.value = value
        return any
    }

    static func status(_ code: Int32, _ message: String, _ details: [AnyMessage]) -> StatusMessage {
        var status = StatusMessage()
        status.code = code
        status.message = message
        status.details = details
        return status
    }

    static let errorInfoURL = "type.googleapis.com/google.rpc.ErrorInfo"

    static let errorInfo: [ConformanceCase] = {
        let proto = "google.rpc.ErrorInfo"
        return [
            ConformanceCase("default", ErrorInfoMessage(), proto: proto, json: "{}"),
            ConformanceCase("reasonAndDomain", errorInfo("SESSION_FULL", "rendezvous.sessions.v1", [:]), proto: proto,
                            json: #"{"reason": "SESSION_FULL", "domain": "rendezvous.sessions.v1"}"#),
            ConformanceCase("oneEntry", errorInfo("QUOTA_EXCEEDED", "", ["limit": "8"]), proto: proto,
                            json: #"{"reason": "QUOTA_EXCEEDED", "metadata": {"limit": "8"}}"#),
            ConformanceCase("manyEntries", errorInfo("R", "d", [
                "zeta": "last", "alpha": "first", "empty value": "", "日本": "😀", "𝄞": "non-BMP key",
                "Z": "upper before lower",
            ]), proto: proto, json: """
                {"reason": "R", "domain": "d", "metadata": {"zeta": "last", "alpha": "first",
                 "empty value": "", "日本": "😀", "𝄞": "non-BMP key", "Z": "upper before lower"}}
                """),
            // Python's default runtime (upb) sorts a key after the longer keys it is a prefix of
            // ("ab" before "a", "" last); C++, Go and pure-Python protobuf, and we, use plain
            // byte order. Both are valid encodings of the same map.
            ConformanceCase("prefixKeys", errorInfo("", "", ["": "empty key", "a": "1", "ab": "2", "b": "3"]),
                            proto: proto, json: #"{"metadata": {"b": "3", "ab": "2", "a": "1", "": "empty key"}}"#,
                            bytes: .sameFieldsInAnotherOrder),
            // UTF-8 byte order (protobuf's deterministic order) is not String order here: Swift
            // compares "e\u{301}" as its canonical equivalent "é" (U+00E9), after "f".
            ConformanceCase("decomposedKeyOrder", errorInfo("", "", ["e\u{301}": "decomposed", "f": "plain"]),
                            proto: proto, json: #"{"metadata": {"f": "plain", "e\#u{301}": "decomposed"}}"#),
        ]
    }()

    static let status: [ConformanceCase] = {
        let proto = "google.rpc.Status"
        let sessionFull = errorInfo("SESSION_FULL", "rendezvous.sessions.v1", ["limit": "8", "session": "s-1"])
        let echo = GRPCTesting.EchoStatus(code: -3, message: "echo").serializedBytes()
        return [
            ConformanceCase("default", StatusMessage(), proto: proto, json: "{}"),
            ConformanceCase("oneErrorInfo",
                            status(9, "session is full", [any(errorInfoURL, sessionFull.serializedBytes())]),
                            proto: proto, json: """
                {"code": 9, "message": "session is full", "details": [{"@type": "\(errorInfoURL)",
                 "reason": "SESSION_FULL", "domain": "rendezvous.sessions.v1",
                 "metadata": {"session": "s-1", "limit": "8"}}]}
                """),
            ConformanceCase("emptyErrorInfo", status(.min, unicodeText, [any(errorInfoURL, [])]), proto: proto,
                            json: """
                {"code": -2147483648, "message": \(unicodeJSON), "details": [{"@type": "\(errorInfoURL)"}]}
                """),
            ConformanceCase("manyDetails", status(.max, "", [
                any(errorInfoURL, errorInfo("A", "", [:]).serializedBytes()),
                any("type.googleapis.com/grpc.testing.EchoStatus", echo),
                any(errorInfoURL, errorInfo("B", "b", ["k": "v"]).serializedBytes()),
            ]), proto: proto, json: """
                {"code": 2147483647, "details": [
                  {"@type": "\(errorInfoURL)", "reason": "A"},
                  {"@type": "type.googleapis.com/grpc.testing.EchoStatus", "code": -3, "message": "echo"},
                  {"@type": "\(errorInfoURL)", "reason": "B", "domain": "b", "metadata": {"k": "v"}}]}
                """),
        ]
    }()

    /// The public path: the `grpc-status-details-bin` bytes an RPCError turns into.
    static let statusDetails: [ConformanceCase] = [
        statusDetails("quotaExceeded", RPCError(code: .resourceExhausted, message: "quota exceeded",
                                                reason: "QUOTA_EXCEEDED", domain: "rendezvous.discovery.v1",
                                                details: ["quota": "swipes", "tier": "free"]), json: """
            {"code": 8, "message": "quota exceeded", "details": [{"@type": "\(errorInfoURL)",
             "reason": "QUOTA_EXCEEDED", "domain": "rendezvous.discovery.v1",
             "metadata": {"tier": "free", "quota": "swipes"}}]}
            """),
        statusDetails("unicodeNoDetails", RPCError(code: .failedPrecondition, message: unicodeText,
                                                   reason: "CONSENT_REQUIRED"), json: """
            {"code": 9, "message": \(unicodeJSON), "details": [{"@type": "\(errorInfoURL)",
             "reason": "CONSENT_REQUIRED", "domain": "rendezvous"}]}
            """),
        statusDetails("unknownCode", RPCError(code: StatusCode(rawValue: 99), message: "", reason: "X", domain: ""),
                      json: #"{"code": 99, "details": [{"@type": "\#(errorInfoURL)", "reason": "X"}]}"#),
    ]

    /// A case whose Swift bytes are `error.statusDetailsBytes()`; bytes decode back to the
    /// error through `applyStatusDetails` (code and message travel in the status trailers).
    static func statusDetails(_ name: String, _ error: RPCError, json: String) -> ConformanceCase {
        // statusDetailsBytes() is nil only without a reason; every case here has one.
        let bytes = error.statusDetailsBytes()!
        return ConformanceCase("RPCError.\(name)", proto: "google.rpc.Status", json: json, swiftBytes: bytes,
                               expectDecodesToValue: { bytes, source in
                                   let status = try StatusMessage(serializedBytes: bytes)
                                   #expect(status.code == Int32(error.code.rawValue), "\(source)")
                                   #expect(status.message == error.message, "\(source)")
                                   var received = RPCError(code: error.code, message: error.message, domain: "",
                                                           trailers: error.trailers)
                                   received.applyStatusDetails(bytes)
                                   #expect(received == error, "\(source) bytes \(bytes.hexPreview)")
                               },
                               reencode: { try StatusMessage(serializedBytes: $0).serializedBytes() })
    }
}
