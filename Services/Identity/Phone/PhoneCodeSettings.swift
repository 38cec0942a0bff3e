/// How phone one-time codes behave (`RV_IDENTITY_PHONE_CODE_*` in `IdentitySettings+Accounts`).
struct PhoneCodeSettings: Sendable {
    /// How long a code works, seconds.
    var lifetime: Int64 = 10 * 60
    /// Wrong guesses a code survives; the next attempt after them finds it dead.
    var maxAttempts = 5
    /// Seconds before another code can be sent to the same number.
    var resendInterval: Int64 = 30
    /// Codes sent to one number in one hour at most (SMS costs money and can be abused to spam).
    var maxSendsPerHour = 5
}
