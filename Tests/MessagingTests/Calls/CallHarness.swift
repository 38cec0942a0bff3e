import Foundation
import Testing
import TestSupport

/// The `.callServices` trait: a fake APNs, then identity, discovery and two messaging instances
/// with short call timings (a 4 s ring, a 1 s grace, a 0.1 s sweep) pushing to it, started once
/// for the suite.
struct CallServicesTrait: SuiteTrait, TestScoping {
    static let ring: Duration = .seconds(4)
    static let grace: Duration = .seconds(1)

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        try await PushDeploymentLock.withLock { try await run(function) }
    }

    private func run(_ function: @Sendable () async throws -> Void) async throws {
        let fake = try FakeAPNs()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-calls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack: DiscoveryStack
        do {
            var environment = try fake.messagingEnvironment(directory: directory)
            environment["RV_CALL_RING_SECONDS"] = "4"
            environment["RV_CALL_GRACE_SECONDS"] = "1"
            environment["RV_CALL_SWEEP_SECONDS"] = "0.1"
            environment["RV_CALL_MAX_SIGNALS"] = "40"
            stack = try await DiscoveryStack.start(messagingInstances: 2, messagingEnvironment: environment)
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

extension Trait where Self == CallServicesTrait {
    /// Runs the suite against a fake APNs and a stack of its own with short call timings.
    static var callServices: Self { CallServicesTrait() }
}
