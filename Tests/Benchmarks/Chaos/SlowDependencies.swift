import Foundation
import TestSupport

/// The stand-ins for the services' outside dependencies that a fault slows down: an
/// S3-compatible store for media's blobs (moto, Tests/MediaTests/Fixtures/s3_server.py) and the
/// icebreaker generator's endpoint (Tests/MessagingTests/Fixtures/icebreaker_endpoint.py).
final class SlowDependencies: Sendable {
    static let bucket = "chaos-media"
    let store: Subprocess.Server
    let icebreaker: Subprocess.Server

    private init(store: Subprocess.Server, icebreaker: Subprocess.Server) {
        self.store = store
        self.icebreaker = icebreaker
    }

    static func start() async throws -> SlowDependencies {
        let root = RepositoryPaths.root
        let store = try await Subprocess.Server.start("/usr/bin/env", ["python3", root.appendingPathComponent("Tests/MediaTests/Fixtures/s3_server.py").path],
                                                      readyPrefix: "listening on ", standardError: .nullDevice)
        let icebreaker: Subprocess.Server
        do {
            guard store.readyWords.count == 2 else { throw ChaosFailure("the S3 stand-in printed no credentials") }
            try await control("http://127.0.0.1:\(store.port)/_test/create?bucket=\(bucket)")
            icebreaker = try await Subprocess.Server.start(
                "/usr/bin/env", ["python3", root.appendingPathComponent("Tests/MessagingTests/Fixtures/icebreaker_endpoint.py").path],
                readyPrefix: "listening on ", standardError: .nullDevice)
        } catch {
            store.stop()
            throw error
        }
        return SlowDependencies(store: store, icebreaker: icebreaker)
    }

    /// Media's blobs in the stand-in's bucket (5 s per S3 request, as shipped).
    var mediaEnvironment: [String: String] {
        ["RV_MEDIA_STORAGE": "s3", "RV_MEDIA_S3_ENDPOINT": "http://127.0.0.1:\(store.port)", "RV_MEDIA_S3_BUCKET": Self.bucket,
         "RV_MEDIA_S3_REGION": "eu-west-1", "RV_MEDIA_S3_ACCESS_KEY_ID": store.readyWords[0],
         "RV_MEDIA_S3_SECRET_ACCESS_KEY": store.readyWords[1], "RV_MEDIA_S3_TIMEOUT_MS": "5000"]
    }

    /// Messaging asks the icebreaker endpoint for each new match's starters (5 s timeout).
    var messagingEnvironment: [String: String] {
        ["RV_ICEBREAKER_URL": "http://127.0.0.1:\(icebreaker.port)/generate", "RV_ICEBREAKER_KEY": "test-key"]
    }

    /// Both answer `seconds` late (0: at once again).
    func slow(_ seconds: Int) async throws {
        let count = seconds > 0 ? 1_000_000 : 0
        try await Self.control("http://127.0.0.1:\(store.port)/_test/stall?count=\(count)&ms=\(seconds * 1000)")
        let mode = seconds > 0 ? "{\"mode\": \"stall\", \"seconds\": \(seconds)}" : "{\"mode\": \"ok\"}"
        try await Self.control("http://127.0.0.1:\(icebreaker.port)/mode", body: mode)
    }

    /// One request to a stand-in's control URL with curl (a POST when there is a body).
    private static func control(_ url: String, body: String? = nil) async throws {
        let arguments = ["-fsS", "--max-time", "10", url] + (body.map { ["-H", "Content-Type: application/json", "--data", $0] } ?? [])
        let result = try await Subprocess.run("/usr/bin/curl", arguments, timeout: .seconds(15))
        guard result.exitCode == 0 else { throw ChaosFailure("\(url): curl exited \(result.exitCode): \(result.output)") }
    }

    func stop() {
        store.stop()
        icebreaker.stop()
    }
}
