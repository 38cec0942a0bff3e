import Foundation
import Runtime

/// One push to one account's devices, as planned from an event.
struct PushJob: Sendable {
    var id: Int64 = 0
    /// The stream and cursor of the event that caused it (`realtime:123`): with the account,
    /// unique, so a replayed event plans nothing twice.
    var source: String
    var account: UUID
    var app: String
    var category: NotificationCategory
    /// The message, match or session the push is about.
    var reference: String
    var payload: [UInt8]
    var collapseID: String?
    var priority: Int
    /// Seconds since 1970 after which APNs stops trying.
    var expiresAt: Int64
    /// How many times the job was leased (1 on its first send).
    var leases = 0
    /// "voip": an incoming call, for the recipient's PushKit tokens (their alert tokens when
    /// they registered none); "alert": everything else, for alert tokens only.
    var pushType = "alert"
    /// The trace of the span that planned it, continued by the span that works it; nil when
    /// that trace was not sampled.
    var trace: EventTraceContext?
}
