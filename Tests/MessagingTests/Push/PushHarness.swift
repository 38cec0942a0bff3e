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
}

struct PushServicesTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        try await PushDeploymentLock.withLock { try await run(function) }
    }

    private func run(_ function: @Sendable () async throws -> Void) async throws {
        let fake = try FakeAPNs()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-push-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack: DiscoveryStack
        do {
            stack = try await DiscoveryStack.start(messagingInstances: 2,
                                                   messagingEnvironment: try fake.messagingEnvironment(directory: directory))
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
