import CryptoCore
import Foundation
import Runtime
import Testing
@testable import Media

/// The signer against AWS's published examples: the Signature V4 test suite (service "service",
/// 2015-08-30) and the S3 header-auth examples (examplebucket, 2013-05-24). Every signature here
/// is AWS's, not one we computed.
@Suite struct SignatureV4Tests {
    static let suite = SignatureV4(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                   region: "us-east-1", service: "service")
    static let s3 = SignatureV4(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                region: "us-east-1", service: "s3")
    static let suiteHeaders = [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")]
    static let s3Host = ("host", "examplebucket.s3.amazonaws.com")
    static let empty = SignatureV4.emptyPayloadHash
    static let s3Headers = [s3Host, ("x-amz-content-sha256", empty), ("x-amz-date", "20130524T000000Z")]
    static let welcomeHash = SignatureV4.hex(SHA256Digest.hash(Array("Welcome to Amazon S3.".utf8)))

    /// (name, signer, request, x-amz-date, signature AWS publishes).
    static let vectors: [(String, SignatureV4, SignatureV4.Request, String, String)] = [
        ("get-vanilla", suite, .init(method: "GET", path: "/", headers: suiteHeaders, payloadHash: empty),
         "20150830T123600Z", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("get-vanilla-query-order-key-case", suite,
         .init(method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")], headers: suiteHeaders, payloadHash: empty),
         "20150830T123600Z", "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        ("get-utf8", suite, .init(method: "GET", path: SignatureV4.uriEncode("/ሴ", encodeSlash: false), headers: suiteHeaders,
                                  payloadHash: empty),
         "20150830T123600Z", "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        ("post-vanilla", suite, .init(method: "POST", path: "/", headers: suiteHeaders, payloadHash: empty),
         "20150830T123600Z", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        ("S3 GET Object with Range", s3,
         .init(method: "GET", path: "/test.txt", headers: s3Headers + [("Range", "bytes=0-9")], payloadHash: empty),
         "20130524T000000Z", "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
        ("S3 PUT Object", s3,
         .init(method: "PUT", path: SignatureV4.uriEncode("/test$file.text", encodeSlash: false),
               headers: [s3Host, ("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-date", "20130524T000000Z"),
                         ("x-amz-storage-class", "REDUCED_REDUNDANCY"), ("x-amz-content-sha256", welcomeHash)],
               payloadHash: welcomeHash),
         "20130524T000000Z", "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"),
        ("S3 GET Bucket lifecycle", s3, .init(method: "GET", path: "/", query: [("lifecycle", "")], headers: s3Headers, payloadHash: empty),
         "20130524T000000Z", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"),
        ("S3 GET Bucket (list objects)", s3,
         .init(method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: s3Headers, payloadHash: empty),
         "20130524T000000Z", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"),
    ]

    @Test(arguments: vectors)
    func authorization_matchesAWSPublishedSignature(name: String, signer: SignatureV4, request: SignatureV4.Request,
                                                    amzDate: String, signature: String) {
        let authorization = signer.authorization(for: request, amzDate: amzDate)
        #expect(authorization.hasSuffix("Signature=\(signature)"), "\(name)")
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=\(signer.accessKeyID)/\(amzDate.prefix(8))/us-east-1/\(signer.service)/aws4_request, "))
    }

    @Test func canonicalRequest_ofTheS3GetObjectExample_isAWSs() {
        let request = SignatureV4.Request(method: "GET", path: "/test.txt", headers: Self.s3Headers + [("Range", "bytes=0-9")],
                                          payloadHash: Self.empty)
        let (text, signed) = SignatureV4.canonicalRequest(request)
        #expect(signed == "host;range;x-amz-content-sha256;x-amz-date")
        #expect(text == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:\(Self.empty)
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            \(Self.empty)
            """)
        // AWS prints the hash of this canonical request as the last line of its string to sign.
        #expect(Self.s3.stringToSign(canonicalRequest: text, amzDate: "20130524T000000Z").hasSuffix(
            "\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"))
    }

    @Test func amzDate_isUTCBasicFormat() {
        #expect(SignatureV4.amzDate(Date(timeIntervalSince1970: 1_440_938_160)) == "20150830T123600Z")
    }

    @Test func uriEncode_keepsUnreservedAndPathSlashes() {
        #expect(SignatureV4.uriEncode("blobs/ab/cd/x y+z~_.-", encodeSlash: false) == "blobs/ab/cd/x%20y%2Bz~_.-")
        #expect(SignatureV4.uriEncode("a/b=c", encodeSlash: true) == "a%2Fb%3Dc")
    }

    @Test func pathAndVirtualHostAddressing_placeTheBucket() throws {
        var settings = S3Settings(endpoint: try #require(URL(string: "http://minio:9000")), bucket: "media",
                                  accessKeyID: "k", secretAccessKey: "s")
        let pool = BlockingWorkPool(threads: 1, name: "s3-address-test")
        defer { pool.stop() }
        let path = S3Client(settings: settings, http: pool).location(of: "blobs/ab/cd/abcd")
        #expect(path.host == "minio:9000")
        #expect(path.url == "http://minio:9000/media/blobs/ab/cd/abcd")
        settings.pathStyle = false
        let virtual = S3Client(settings: settings, http: pool).location(of: "blobs/ab/cd/abcd")
        #expect(virtual.host == "media.minio:9000")
        #expect(virtual.path == "/blobs/ab/cd/abcd")
        #expect(S3Client(settings: settings, http: pool).location(of: nil).url == "http://media.minio:9000/")
    }
}
