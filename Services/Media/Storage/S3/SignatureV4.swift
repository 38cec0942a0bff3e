#if canImport(Glibc)
import Glibc
#endif
import CryptoCore
import Foundation

/// AWS Signature Version 4 in the Authorization header, as S3 takes it: the canonical request,
/// the string to sign and the signing key derived from the secret per day, region and service
/// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html).
/// Paths are S3's: each segment encoded once, never normalized or encoded twice.
struct SignatureV4: Sendable {
    let accessKeyID: String
    let secretAccessKey: String
    let region: String
    let service: String

    /// What is signed of one request.
    struct Request {
        var method: String
        /// The canonical URI: path segments already URI-encoded (`uriEncode`), slashes kept.
        var path: String
        /// Query parameters, not encoded; an empty value signs as `name=`.
        var query: [(name: String, value: String)] = []
        /// Every header to sign, `host` and `x-amz-date` included; names in any case.
        var headers: [(name: String, value: String)]
        /// Lowercase hex SHA-256 of the body (or `UNSIGNED-PAYLOAD`).
        var payloadHash: String
    }

    static let algorithm = "AWS4-HMAC-SHA256"
    /// The SHA-256 of no bytes, the payload hash of a request without a body.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The Authorization header's value for `request` at `amzDate` (`yyyyMMdd'T'HHmmss'Z'`, also
    /// the request's x-amz-date).
    func authorization(for request: Request, amzDate: String) -> String {
        let (canonical, signedHeaders) = Self.canonicalRequest(request)
        let signature = self.signature(canonicalRequest: canonical, amzDate: amzDate)
        return "\(Self.algorithm) Credential=\(accessKeyID)/\(scope(amzDate)), SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    /// The hex signature of a canonical request.
    func signature(canonicalRequest: String, amzDate: String) -> String {
        let day = String(amzDate.prefix(8))
        let toSign = stringToSign(canonicalRequest: canonicalRequest, amzDate: amzDate)
        return Self.hex(HMACSHA256.authenticate(key: signingKey(day: day), message: Array(toSign.utf8)))
    }

    /// `day/region/service/aws4_request`.
    func scope(_ amzDate: String) -> String { "\(amzDate.prefix(8))/\(region)/\(service)/aws4_request" }

    func stringToSign(canonicalRequest: String, amzDate: String) -> String {
        [Self.algorithm, amzDate, scope(amzDate), Self.hex(SHA256Digest.hash(Array(canonicalRequest.utf8)))]
            .joined(separator: "\n")
    }

    /// HMAC chain over "AWS4" + secret: day, region, service, "aws4_request".
    func signingKey(day: String) -> [UInt8] {
        var key = Array("AWS4\(secretAccessKey)".utf8)
        for part in [day, region, service, "aws4_request"] {
            key = HMACSHA256.authenticate(key: key, message: Array(part.utf8))
        }
        return key
    }

    /// The canonical request and its SignedHeaders list.
    static func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
        let encoded: [(name: String, value: String)] = request.query.map { parameter in
            (uriEncode(parameter.name, encodeSlash: true), uriEncode(parameter.value, encodeSlash: true))
        }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        let query = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        var headers: [String: [String]] = [:]
        for (name, value) in request.headers {
            let trimmed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            headers[name.lowercased(), default: []].append(trimmed)
        }
        let names = headers.keys.sorted()
        // Safe: every name in `names` is a key of `headers`.
        let canonicalHeaders = names.map { "\($0):\(headers[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let text = [request.method, request.path, query, canonicalHeaders, signedHeaders, request.payloadHash]
            .joined(separator: "\n")
        return (text, signedHeaders)
    }

    /// RFC 3986 encoding as SigV4 wants it: every byte but A-Z a-z 0-9 - . _ ~ as %XX (uppercase),
    /// and `/` too unless it separates path segments.
    static func uriEncode(_ text: String, encodeSlash: Bool) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where !encodeSlash:
                encoded.append("/")
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func amzDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension SignatureV4: CustomStringConvertible {
    /// Names the key and scope, never the secret.
    var description: String { "SignatureV4(\(accessKeyID), \(region), \(service))" }
}
