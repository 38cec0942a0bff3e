import Testing
import TestSupport

/// The `.productionServices` trait: a `ProductionStack` started once for the suite; tests call
/// its executables over the wire with the generated clients, each person with their own token.
enum ProductionHarness {
    @TaskLocal static var stack: ProductionStack?

    /// The suite's stack; fails the test clearly when the suite lacks the trait.
    static var running: ProductionStack {
        get throws {
            guard let stack else { throw SubprocessError(message: "this suite needs the .productionServices trait") }
            return stack
        }
    }
}

struct ProductionServicesTrait: SuiteTrait, TestScoping {
    var withDiscovery = false

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let stack = try await ProductionStack.start(withDiscovery: withDiscovery)
        do {
            try await ProductionHarness.$stack.withValue(stack) { try await function() }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == ProductionServicesTrait {
    /// Runs the suite against `identity` and `production` executables of its own.
    static var productionServices: Self { ProductionServicesTrait() }
    /// The same with `discovery` too, whose matches production follows (dates).
    static var productionWithDiscovery: Self { ProductionServicesTrait(withDiscovery: true) }
}
