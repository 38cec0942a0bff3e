import Testing
import TestSupport

/// The `.discoveryServices` trait: a `DiscoveryStack` started once for the suite; tests call
/// its executables over the wire with the generated clients, each user with its own token.
enum DiscoveryHarness {
    @TaskLocal static var stack: DiscoveryStack?

    static let messagingSecret = DiscoveryStack.messagingSecret

    /// The suite's stack; fails the test clearly when the suite lacks the trait.
    static var running: DiscoveryStack {
        get throws {
            guard let stack else { throw SubprocessError(message: "this suite needs the .discoveryServices trait") }
            return stack
        }
    }

    static var identityPort: Int { get throws { try running.identity.port } }
    static var discoveryPort: Int { get throws { try running.discovery.port } }
}

struct DiscoveryServicesTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let stack = try await DiscoveryStack.start()
        do {
            try await DiscoveryHarness.$stack.withValue(stack) { try await function() }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == DiscoveryServicesTrait {
    /// Runs the suite against `identity` and `discovery` executables of its own.
    static var discoveryServices: Self { DiscoveryServicesTrait() }
}
