import CryptoCore

/// The JSON body of a push (Apple: "Generating a remote notification"): `aps` with the alert,
/// category and thread, the sound (none inside quiet hours, where the interruption level is
/// passive; an incoming call is time-sensitive otherwise), and our `deep_link`, `category` and
/// any `data` beside it.
struct PushPayload: Sendable {
    var title: String
    var body: String
    var category: NotificationCategory
    /// Groups the notifications of one conversation or event on the device.
    var threadID: String
    /// `<app>://...`, opened when the notification is tapped.
    var deepLink: String
    var quiet = false
    /// `interruption-level: time-sensitive` (an incoming call), unless quiet.
    var timeSensitive = false
    /// More top-level string fields for the app (e.g. `call_id`).
    var data: [String: String] = [:]

    /// The body as bytes, at most APNs's 4 KiB (the alert body is shortened to fit).
    func bytes() -> [UInt8] {
        var text = body
        while true {
            var aps: [String: JSONValue] = [
                "alert": .object(["title": .string(title), "body": .string(text)]),
                "category": .string(category.name),
                "thread-id": .string(threadID),
            ]
            if quiet {
                aps["interruption-level"] = .string("passive")
            } else {
                aps["sound"] = .string("default")
                if timeSensitive { aps["interruption-level"] = .string("time-sensitive") }
            }
            var fields: [String: JSONValue] = data.mapValues { .string($0) }
            fields["aps"] = .object(aps)
            fields["deep_link"] = .string(deepLink)
            fields["category"] = .string(category.name)
            let bytes = JSONValue.object(fields).serialized()
            if bytes.count <= 4096 || text.isEmpty { return bytes }
            text = String(text.prefix(max(0, text.count - (bytes.count - 4096) - 8))) + "…"
        }
    }

    /// `text` cut to `limit` characters with an ellipsis.
    static func preview(_ text: String, limit: Int = 140) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
