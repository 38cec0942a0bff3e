/// Delivers a phone one-time code (an SMS gateway in production, the log in development).
/// Implementations must not keep the code after delivering it.
protocol OneTimeCodeSender: Sendable {
    /// Hands `code` over for delivery to `phone` on behalf of `app`; throws when it could not.
    func send(code: String, to phone: PhoneNumber, app: String) async throws
}
