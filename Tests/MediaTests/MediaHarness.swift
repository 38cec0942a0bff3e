import Testing
import TestSupport

/// The `.mediaServices` trait: a `MediaStack` started once for the suite; tests call its
/// executables over the wire with the generated clients, each user with its own token.
enum MediaHarness {
    @TaskLocal static var stack: MediaStack?

    /// The suite's stack; fails the test clearly when the suite lacks the trait.
    static var running: MediaStack {
        get throws {
            guard let stack else { throw SubprocessError(message: "this suite needs the .mediaServices trait") }
            return stack
        }
    }
}

struct MediaServicesTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let stack = try await MediaStack.start()
        do {
            try await MediaHarness.$stack.withValue(stack) { try await function() }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == MediaServicesTrait {
    /// Runs the suite against `identity` and `media` executables of its own.
    static var mediaServices: Self { MediaServicesTrait() }
}
