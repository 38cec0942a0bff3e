/// One push as APNs takes it: the request headers besides the device token and authorization,
/// and the JSON payload.
struct APNsNotification: Sendable {
    /// `apns-topic`: the app's bundle id.
    var topic: String
    /// `apns-push-type`.
    var pushType = "alert"
    /// `apns-priority`: 10 delivers at once, 5 when convenient for the device's power.
    var priority = 10
    /// `apns-collapse-id` (at most 64 bytes): a later push with the same id replaces this one.
    var collapseID: String?
    /// `apns-expiration`: seconds since 1970 until which APNs keeps trying; 0 means once only.
    var expiration: Int64 = 0
    /// The JSON body (at most 4 KiB).
    var payload: [UInt8]
}

/// What APNs answered for one push (Apple: "Handling notification responses from APNs").
struct APNsResponse: Sendable, Equatable {
    var status: Int
    /// `apns-id`, the push's id at Apple.
    var apnsID: String?
    /// The body's `reason` (BadDeviceToken, Unregistered, TooManyRequests, ...).
    var reason: String?
    /// The body's `timestamp` with 410: when the token stopped being valid, milliseconds since 1970.
    var timestamp: Int64?
}
