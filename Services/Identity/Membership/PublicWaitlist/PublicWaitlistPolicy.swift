/// How an app's public email waitlist works (part of `AppPolicy`).
struct PublicWaitlistPolicy: Sendable, Hashable {
    /// Places an entry moves up for each entry that joined with its referral code.
    var placesPerReferral: Int
}
