import CryptoCore
import Foundation
import OutboundHTTP
import Runtime

/// Signed requests to one bucket over libcurl (`OutboundHTTP`), on threads of their own. 5xx,
/// 429, timeouts and transport failures are retried with exponential backoff; any other error
/// status is final. 404 is an answer, not an error: the caller decides what it means.
struct S3Client: Sendable {
    let settings: S3Settings
    let signer: SignatureV4
    let http: BlockingWorkPool
    /// Attempts per request, and the wait before the second (doubled each time).
    var attempts = 3
    var firstBackoff: Duration = .milliseconds(100)

    init(settings: S3Settings, http: BlockingWorkPool) {
        self.settings = settings
        self.http = http
        signer = SignatureV4(accessKeyID: settings.accessKeyID, secretAccessKey: settings.secretAccessKey,
                             region: settings.region, service: "s3")
    }

    /// One request to be signed and sent.
    struct Call: Sendable {
        /// For errors and logs, e.g. "GET object".
        var operation: String
        var method: String
        /// The object key (unencoded), or nil for the bucket itself.
        var key: String?
        var query: [(name: String, value: String)] = []
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        /// Lowercase hex SHA-256 of `body`; computed when nil.
        var payloadHash: String?
        var maximumResponseBody = OutboundHTTP.maximumBody
    }

    /// Sends `call`, retrying what may pass; returns any 2xx or 404 answer.
    func send(_ call: Call) async throws -> OutboundHTTP.Response {
        let body = call.body
        // Hashing a part (megabytes) is CPU work: on the request threads, not the cooperative pool.
        var payloadHash = call.payloadHash ?? ""
        if call.payloadHash == nil { payloadHash = try await http.run { SignatureV4.hex(SHA256Digest.hash(body)) } }
        var backoff = firstBackoff
        var lastFailure = ""
        for attempt in 1...attempts {
            if attempt > 1 {
                try await Task.sleep(for: backoff)
                backoff *= 2
            }
            let request = signedRequest(call, payloadHash: payloadHash, at: Date())
            let response: OutboundHTTP.Response
            do {
                response = try await http.run { () throws(OutboundHTTP.Failure) -> OutboundHTTP.Response in
                    try OutboundHTTP.perform(request)
                }
            } catch let failure as OutboundHTTP.Failure {
                if failure == .bodyTooLarge { throw S3Error(kind: .malformed("response too large"), operation: call.operation) }
                lastFailure = failure.description
                continue
            }
            switch response.status {
            case 200..<300, 404:
                return response
            case 500..<600, 429:
                lastFailure = "HTTP \(response.status) \(Self.errorCode(response.body) ?? "")"
                    .trimmingCharacters(in: .whitespaces)
            default:
                // HEAD answers carry no body, so no code: 403 is then a wrong key or secret, or no permission.
                let code = Self.errorCode(response.body) ?? (response.status == 403 ? "Forbidden" : "no error code")
                throw S3Error(kind: .rejected(status: response.status, code: code), operation: call.operation)
            }
        }
        throw S3Error(kind: .unreachable(lastFailure), operation: call.operation)
    }

    /// Sends `call`; a 404 fails it too (the bucket or upload is gone).
    @discardableResult
    func require(_ call: Call) async throws -> OutboundHTTP.Response {
        let response = try await send(call)
        guard response.status != 404 else {
            throw S3Error(kind: .rejected(status: 404, code: Self.errorCode(response.body) ?? "NotFound"), operation: call.operation)
        }
        return response
    }

    /// The host, path and URL of `key` (nil: the bucket) as the addressing style wants them.
    func location(of key: String?) -> (host: String, path: String, url: String) {
        // Safe: S3Settings.load accepts only endpoints with a host.
        let endpointHost = settings.endpoint.host!
        let port = settings.endpoint.port.map { ":\($0)" } ?? ""
        let scheme = settings.endpoint.scheme ?? "https"
        let encodedKey = key.map { "/" + SignatureV4.uriEncode($0, encodeSlash: false) } ?? ""
        if settings.pathStyle {
            let path = "/\(settings.bucket)\(encodedKey.isEmpty ? "" : encodedKey)"
            return ("\(endpointHost)\(port)", path, "\(scheme)://\(endpointHost)\(port)\(path)")
        }
        let host = "\(settings.bucket).\(endpointHost)\(port)"
        let path = encodedKey.isEmpty ? "/" : encodedKey
        return (host, path, "\(scheme)://\(host)\(path)")
    }

    func signedRequest(_ call: Call, payloadHash: String, at date: Date) -> OutboundHTTP.Request {
        let (host, path, url) = location(of: call.key)
        let amzDate = SignatureV4.amzDate(date)
        var signed = call.headers
        signed += [("host", host), ("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
        let authorization = signer.authorization(
            for: .init(method: call.method, path: path, query: call.query, headers: signed, payloadHash: payloadHash),
            amzDate: amzDate)
        let query = call.query
            .map { "\(SignatureV4.uriEncode($0.name, encodeSlash: true))=\(SignatureV4.uriEncode($0.value, encodeSlash: true))" }
            .joined(separator: "&")
        // libcurl would add `Expect: 100-continue` to larger bodies (a round trip more) and a form
        // content type to any: neither is wanted.
        var unsigned = [("authorization", authorization), ("expect", "")]
        if !call.body.isEmpty { unsigned.append(("content-type", "application/octet-stream")) }
        return OutboundHTTP.Request(method: call.method, url: query.isEmpty ? url : "\(url)?\(query)",
                                    headers: (signed + unsigned).map { ($0.0, $0.1) }, body: call.body,
                                    timeout: settings.timeout, maximumResponseBody: call.maximumResponseBody)
    }

    /// `<Code>` of an S3 error document.
    static func errorCode(_ body: [UInt8]) -> String? { S3XML.firstValue(of: "Code", in: body) }
}
