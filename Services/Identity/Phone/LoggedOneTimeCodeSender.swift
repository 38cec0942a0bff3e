import Logging

/// The development sender: writes the code to the service log instead of sending an SMS, so a
/// developer can sign in by phone locally. Never for production: whoever reads the log can
/// sign in as anyone (IdentityMain warns at start-up while it is in use).
struct LoggedOneTimeCodeSender: OneTimeCodeSender {
    let logger: Logger

    /// The sender used when none is configured.
    static let standard = LoggedOneTimeCodeSender(logger: Logger(label: "identity"))

    func send(code: String, to phone: PhoneNumber, app: String) async throws {
        logger.notice("phone one-time code (development sender: no SMS was sent)",
                      metadata: ["app": .string(app), "phone": .string(phone.value), "code": .string(code)])
    }
}
