import Foundation
import Runtime
import TestSupport
import Testing
@testable import Media

/// moto in server mode (Fixtures/s3_server.py) with signatures enforced: the real S3-compatible
/// store the S3 backend's suite runs media against.
struct S3Server: Sendable {
    let port: Int
    let accessKeyID: String
    let secretAccessKey: String
    static let bucket = "media-tests"

    @TaskLocal static var current: S3Server?

    static var running: S3Server {
        get throws {
            guard let current else { throw SubprocessError(message: "this suite needs the .s3Storage trait") }
            return current
        }
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The settings that put media's blobs in this server's bucket, 5 MiB parts.
    var mediaEnvironment: [String: String] {
        ["RV_MEDIA_STORAGE": "s3", "RV_MEDIA_S3_ENDPOINT": endpoint, "RV_MEDIA_S3_BUCKET": Self.bucket,
         "RV_MEDIA_S3_REGION": "eu-west-1", "RV_MEDIA_S3_ACCESS_KEY_ID": accessKeyID,
         "RV_MEDIA_S3_SECRET_ACCESS_KEY": secretAccessKey, "RV_MEDIA_S3_PART_SIZE_MB": "5", "RV_MEDIA_S3_TIMEOUT_MS": "5000"]
    }

    /// The bucket's objects: key → size.
    func objects() async throws -> [String: Int] {
        var objects: [String: Int] = [:]
        for line in try await control("/_test/keys?bucket=\(Self.bucket)").split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let size = Int(parts[1]) { objects[String(parts[0])] = size }
        }
        return objects
    }

    /// The S3 requests the server received so far, "METHOD /path?query" each.
    func requests() async throws -> [String] { try await control("/_test/log").split(separator: "\n").map(String.init) }

    /// Multipart uploads begun and neither completed nor aborted.
    func unfinishedMultipartUploads() async throws -> Int {
        Int(try await control("/_test/multipart?bucket=\(Self.bucket)").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The next `count` S3 requests (those whose "/path?query" contains `matching`) are answered 503 SlowDown.
    func failNext(_ count: Int, matching: String = "") async throws {
        _ = try await control("/_test/fail?count=\(count)&match=\(matching)")
    }

    /// The next `count` S3 requests (those whose "/path?query" contains `matching`) are answered `delay` late.
    func stallNext(_ count: Int, by delay: Duration, matching: String = "") async throws {
        let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
        _ = try await control("/_test/stall?count=\(count)&ms=\(milliseconds)&match=\(matching)")
    }

    private func control(_ path: String) async throws -> String {
        let response = try await HTTPProbe.get(path, port: port)
        guard response.status == 200 else { throw SubprocessError(message: "s3 server \(path): \(response.status) \(response.body)") }
        return response.body
    }

    /// Creates the bucket through media's own signed client.
    func createBucket() async throws {
        let settings = S3Settings(endpoint: try #require(URL(string: endpoint)), bucket: Self.bucket, region: "eu-west-1",
                                  accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)
        let pool = BlockingWorkPool(threads: 1, name: "s3-tests")
        defer { pool.stop() }
        let configuration = "<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>"
        try await S3Client(settings: settings, http: pool).require(.init(operation: "CreateBucket", method: "PUT", key: nil,
                                                                          body: Array(configuration.utf8)))
    }
}

/// The `.s3Storage` trait: an S3 server of the suite's own, its bucket, and a media stack whose
/// blobs live there.
struct S3StorageTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let script = RepositoryPaths.root.appendingPathComponent("Tests/MediaTests/Fixtures/s3_server.py").path
        // Pipes of its own (see Subprocess.Server); it stops when its input closes.
        let process: Subprocess.Server
        do {
            process = try await Subprocess.Server.start("/usr/bin/env", ["python3", script], readyPrefix: "listening on ",
                                                        standardError: .nullDevice)
        } catch {
            throw SubprocessError(message: "the S3 server did not start (is moto[server] installed?): \(error)")
        }
        defer { process.stop() }
        guard process.readyWords.count == 2 else {
            throw SubprocessError(message: "the S3 server printed no credentials: \(process.readyWords)")
        }
        let server = S3Server(port: process.port, accessKeyID: process.readyWords[0], secretAccessKey: process.readyWords[1])
        try await server.createBucket()
        let stack = try await MediaStack.start(mediaEnvironment: server.mediaEnvironment)
        do {
            try await MediaHarness.$stack.withValue(stack) {
                try await S3Server.$current.withValue(server) { try await function() }
            }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == S3StorageTrait {
    /// identity and media with RV_MEDIA_STORAGE=s3 against a moto server of the suite's own.
    static var s3Storage: Self { S3StorageTrait() }
}
