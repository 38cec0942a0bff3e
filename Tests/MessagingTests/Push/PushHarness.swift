import CryptoCore
import Foundation
import Testing
import TestSupport

/// The `.pushServices` trait: a fake APNs, then identity, discovery and two messaging instances
/// sending pushes to it (a .p8 key written for them, the fake's certificate trusted), started
/// once for the suite.
enum PushHarness {
    @TaskLocal static var fake: FakeAPNs?

    static var running: FakeAPNs {
        get throws {
            guard let fake else { throw SubprocessError(message: "this suite needs the .pushServices trait") }
            return fake
        }
    }

    static let topics = ["swivo": "com.example.swivo", "elite": "com.example.elite", "firstdate": "com.example.firstdate"]
}

struct PushServicesTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let fake = try FakeAPNs()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("AuthKey.p8")
        let rootsFile = directory.appendingPathComponent("apns-root.pem")
        try Data(try fake.key.pemBytes()).write(to: keyFile)
        try Data(fake.certificatePEM).write(to: rootsFile)
        let stack: DiscoveryStack
        do {
            stack = try await DiscoveryStack.start(messagingInstances: 2, messagingEnvironment: [
                "RV_APNS_HOST": "127.0.0.1:\(fake.port)", "RV_APNS_SANDBOX_HOST": "127.0.0.1:\(fake.port)",
                "RV_APNS_KEY_FILE": keyFile.path, "RV_APNS_KEY_ID": fake.key.keyID, "RV_APNS_TEAM_ID": fake.teamID,
                "RV_APNS_TRUST_ROOTS": rootsFile.path,
                "RV_APNS_TOPICS": PushHarness.topics.map { "\($0.key):\($0.value)" }.joined(separator: ","),
                "RV_APNS_BACKOFF_MS": "20", "RV_PUSH_POLL_INTERVAL_MS": "20",
            ])
        } catch {
            await fake.stop()
            throw error
        }
        do {
            try await MessagingHarness.$stack.withValue(stack) {
                try await PushHarness.$fake.withValue(fake) { try await function() }
            }
        } catch {
            print(stack.logs)
            await stack.stop()
            await fake.stop()
            throw error
        }
        await stack.stop()
        await fake.stop()
    }
}

extension Trait where Self == PushServicesTrait {
    /// Runs the suite against a fake APNs and a stack of its own whose messaging sends to it.
    static var pushServices: Self { PushServicesTrait() }
}
