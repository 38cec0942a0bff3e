import Testing
import TestSupport

/// The `.messagingServices` trait: identity, discovery and two messaging instances of one
/// deployment (`DiscoveryStack`), started once for the suite.
enum MessagingHarness {
    @TaskLocal static var stack: DiscoveryStack?

    /// The suite's stack; fails the test clearly when the suite lacks the trait.
    static var running: DiscoveryStack {
        get throws {
            guard let stack else { throw SubprocessError(message: "this suite needs the .messagingServices trait") }
            return stack
        }
    }
}

struct MessagingServicesTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        // Pruning runs often here so that a test of it need not wait an hour, and a stalled
        // reader is cut off after 32 events rather than 256, so that one is quick to stall.
        let stack = try await DiscoveryStack.start(messagingInstances: 2,
                                                   messagingEnvironment: ["RV_MESSAGING_PRUNE_INTERVAL": "0.2",
                                                                          "RV_MESSAGING_STREAM_BUFFER": "32"])
        do {
            try await MessagingHarness.$stack.withValue(stack) { try await function() }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == MessagingServicesTrait {
    /// Runs the suite against identity, discovery and two messaging instances of its own.
    static var messagingServices: Self { MessagingServicesTrait() }
}
