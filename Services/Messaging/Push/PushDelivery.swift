/// How one push to one token ended, as the delivery log records it.
struct PushDelivery: Sendable, Equatable {
    enum Status: String, Sendable, CaseIterable {
        /// APNs took it (200).
        case delivered
        /// 410 Unregistered: the token was marked inactive in identity.
        case unregistered
        /// 400 BadDeviceToken or DeviceTokenNotForTopic: the token was marked inactive.
        case badToken = "bad_token"
        /// 429, 5xx or no answer on every attempt.
        case failed
        /// Any other refusal (a payload or header APNs does not take); not retried.
        case rejected
    }

    var status: Status
    /// The last HTTP status (0 when no answer came).
    var httpStatus: Int
    var reason: String?
    var attempts: Int
    var apnsID: String?
}
