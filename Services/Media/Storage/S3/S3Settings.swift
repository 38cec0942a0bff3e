import Foundation
import Runtime

/// Where and how media reaches its S3-compatible bucket (`RV_MEDIA_STORAGE=s3`). Unfinished
/// uploads stay in the local staging folder (`RV_MEDIA_STORAGE_DIR`) until they are complete.
struct S3Settings: Sendable, Equatable {
    /// Scheme, host and port, e.g. `https://s3.eu-west-1.amazonaws.com` or `http://minio:9000`
    /// (`RV_MEDIA_S3_ENDPOINT`; default AWS's endpoint of the region).
    var endpoint: URL
    /// `RV_MEDIA_S3_BUCKET`.
    var bucket: String
    /// `RV_MEDIA_S3_REGION` (default us-east-1; MinIO and moto accept any).
    var region = "us-east-1"
    /// `RV_MEDIA_S3_ACCESS_KEY_ID` and `RV_MEDIA_S3_SECRET_ACCESS_KEY`.
    var accessKeyID: String
    var secretAccessKey: String
    /// Path-style URLs (`endpoint/bucket/key`, what MinIO and moto serve) or virtual-host style
    /// (`bucket.endpoint/key`, what AWS prefers) (`RV_MEDIA_S3_ADDRESSING=path|virtual-host`;
    /// default path).
    var pathStyle = true
    /// Objects up to this size go up in one PUT; larger ones as a multipart upload in parts of
    /// this size (`RV_MEDIA_S3_PART_SIZE_MB`, 5-512, default 8; S3's smallest part is 5 MiB).
    var partSize = 8 << 20
    /// One HTTP exchange with the store, connecting included (`RV_MEDIA_S3_TIMEOUT_MS`, 100-600000).
    var timeout: Duration = .seconds(30)

    static let storageVariable = "RV_MEDIA_STORAGE"
    static let endpointVariable = "RV_MEDIA_S3_ENDPOINT"
    static let bucketVariable = "RV_MEDIA_S3_BUCKET"
    static let regionVariable = "RV_MEDIA_S3_REGION"
    static let accessKeyIDVariable = "RV_MEDIA_S3_ACCESS_KEY_ID"
    static let secretAccessKeyVariable = "RV_MEDIA_S3_SECRET_ACCESS_KEY"
    static let addressingVariable = "RV_MEDIA_S3_ADDRESSING"
    static let partSizeVariable = "RV_MEDIA_S3_PART_SIZE_MB"
    static let timeoutVariable = "RV_MEDIA_S3_TIMEOUT_MS"

    /// The S3 settings when `RV_MEDIA_STORAGE` is `s3`, nil when it is `local` or unset.
    static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> S3Settings? {
        guard try environment.choice(storageVariable, ["local", "s3"]) == "s3" else { return nil }
        let region = environment[regionVariable] ?? "us-east-1"
        guard region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw ConfigurationError(variable: regionVariable, message: "must be a region name such as eu-west-1")
        }
        let endpointText = environment[endpointVariable] ?? "https://s3.\(region).amazonaws.com"
        guard let endpoint = URL(string: endpointText), let scheme = endpoint.scheme, ["http", "https"].contains(scheme),
              endpoint.host != nil, endpoint.path.isEmpty || endpoint.path == "/", endpoint.query == nil else {
            throw ConfigurationError(variable: endpointVariable, message: "must be http(s)://host[:port] without a path")
        }
        let bucket = try environment.required(bucketVariable)
        guard (3...63).contains(bucket.count),
              bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }) else {
            throw ConfigurationError(variable: bucketVariable, message: "must be a bucket name (3-63 of a-z 0-9 . -)")
        }
        var settings = S3Settings(endpoint: endpoint, bucket: bucket, region: region,
                                  accessKeyID: try environment.required(accessKeyIDVariable),
                                  secretAccessKey: try environment.required(secretAccessKeyVariable))
        if let addressing = try environment.choice(addressingVariable, ["path", "virtual-host"]) {
            settings.pathStyle = addressing == "path"
        }
        if let megabytes = try environment.integer(partSizeVariable, range: 5...512) { settings.partSize = megabytes << 20 }
        if let milliseconds = try environment.integer(timeoutVariable, range: 100...600_000) {
            settings.timeout = .milliseconds(milliseconds)
        }
        return settings
    }
}

extension S3Settings: CustomStringConvertible {
    /// Everything but the secret.
    var description: String {
        "S3Settings(\(endpoint.absoluteString), bucket \(bucket), \(region), \(pathStyle ? "path" : "virtual-host") style, key \(accessKeyID))"
    }
}
