import Contracts
import Foundation
@testable import Identity
import Postgres
import Synchronization

/// A `OneTimeCodeSender` that keeps what it was asked to send, for tests to read the code.
final class CapturingCodeSender: OneTimeCodeSender {
    struct Message: Sendable {
        var code: String
        var phone: String
        var app: String
    }

    private let messages = Mutex<[Message]>([])

    func send(code: String, to phone: PhoneNumber, app: String) async throws {
        messages.withLock { $0.append(Message(code: code, phone: phone.value, app: app)) }
    }

    /// Every message sent so far, oldest first.
    var sent: [Message] { messages.withLock { $0 } }

    /// The latest code sent to `phone` (E.164).
    func lastCode(to phone: String) -> String? {
        messages.withLock { $0.last { $0.phone == phone }?.code }
    }
}

/// A sender whose gateway is down.
struct FailingCodeSender: OneTimeCodeSender {
    struct Down: Error {}

    func send(code: String, to phone: PhoneNumber, app: String) async throws { throw Down() }
}

extension IdentityHarness {
    /// The harness with the test provider keys and a capturing code sender.
    static func startForSignIn(_ minter: ProviderTokenMinter, sender: CapturingCodeSender = CapturingCodeSender(),
                               _ configure: (inout IdentitySettings) -> Void = { _ in }) async throws -> IdentityHarness {
        let keys = try minter.keys
        return try await start { settings in
            settings.providerKeys = keys
            settings.oneTimeCodeSender = sender
            configure(&settings)
        }
    }

    /// A phone number no other test uses (15 digits, the E.164 maximum: +1 555 and 11 random).
    static func uniquePhone() -> String {
        "+1555" + String(format: "%011llu", UInt64.random(in: 0..<100_000_000_000))
    }
}
