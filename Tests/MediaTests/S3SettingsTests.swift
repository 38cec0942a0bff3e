import Foundation
import Runtime
import Testing
@testable import Media

/// RV_MEDIA_STORAGE and the RV_MEDIA_S3_* settings: switching backends is configuration, and a
/// bad value stops start-up naming the variable.
@Suite struct S3SettingsTests {
    static let complete = ["RV_MEDIA_STORAGE": "s3", "RV_MEDIA_S3_BUCKET": "rv-media", "RV_MEDIA_S3_ACCESS_KEY_ID": "AKIDEXAMPLE",
                           "RV_MEDIA_S3_SECRET_ACCESS_KEY": "secret"]

    static func load(_ values: [String: String]) throws(ConfigurationError) -> MediaSettings {
        try MediaSettings.load(from: EnvironmentReader(environment: Environment(values)))
    }

    @Test func unsetOrLocal_isTheLocalBackend() throws {
        #expect(try Self.load([:]).s3 == nil)
        #expect(try Self.load(["RV_MEDIA_STORAGE": "local", "RV_MEDIA_S3_BUCKET": "ignored"]).s3 == nil)
    }

    @Test func s3_defaultsToAWSsRegionalEndpoint_pathStyle_8MiBParts() throws {
        let s3 = try #require(try Self.load(Self.complete.merging(["RV_MEDIA_S3_REGION": "eu-west-1"]) { $1 }).s3)
        #expect(s3.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com")
        #expect(s3.bucket == "rv-media")
        #expect(s3.pathStyle)
        #expect(s3.partSize == 8 << 20)
        #expect(!s3.description.contains("secret"))
    }

    @Test func s3_takesEndpointAddressingPartSizeAndTimeout() throws {
        let s3 = try #require(try Self.load(Self.complete.merging([
            "RV_MEDIA_S3_ENDPOINT": "http://minio:9000", "RV_MEDIA_S3_ADDRESSING": "virtual-host",
            "RV_MEDIA_S3_PART_SIZE_MB": "16", "RV_MEDIA_S3_TIMEOUT_MS": "2500",
        ]) { $1 }).s3)
        #expect(s3.endpoint.absoluteString == "http://minio:9000")
        #expect(!s3.pathStyle)
        #expect(s3.partSize == 16 << 20)
        #expect(s3.timeout == .milliseconds(2500))
    }

    @Test(arguments: [
        ("RV_MEDIA_STORAGE", "gcs"),
        ("RV_MEDIA_S3_BUCKET", "Not_A_Bucket"),
        ("RV_MEDIA_S3_ENDPOINT", "minio:9000"),
        ("RV_MEDIA_S3_ENDPOINT", "http://minio:9000/bucket"),
        ("RV_MEDIA_S3_ADDRESSING", "dns"),
        ("RV_MEDIA_S3_PART_SIZE_MB", "4"),
        ("RV_MEDIA_S3_REGION", "eu west"),
    ])
    func badValue_namesItsVariable(variable: String, value: String) {
        var values = Self.complete
        values[variable] = value
        #expect { try Self.load(values) } throws: { ($0 as? ConfigurationError)?.variable == variable }
    }

    @Test(arguments: ["RV_MEDIA_S3_BUCKET", "RV_MEDIA_S3_ACCESS_KEY_ID", "RV_MEDIA_S3_SECRET_ACCESS_KEY"])
    func missingSetting_namesItsVariable(variable: String) {
        var values = Self.complete
        values[variable] = nil
        #expect { try Self.load(values) } throws: { ($0 as? ConfigurationError)?.variable == variable }
    }
}
