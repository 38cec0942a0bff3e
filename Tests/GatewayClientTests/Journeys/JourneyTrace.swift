import Foundation
import Journeys
import RPCCore
import TestSupport

/// One journey's trace as the stand-in collector received it: every span the services recorded
/// under the trace id the journey's calls carried (`GatewayClient.withTraceParent`), and what a
/// trace of a match-and-chat journey must show: one tree from the edge's calls through the
/// services into the match event's consumers and the push, with consumers linked to their
/// producers, and nothing in a name or attribute that a user typed or a token.
struct JourneyTrace {
    /// The app's span the journey's calls name as their parent: not recorded (flag clear), so
    /// the services' sampling decides, and never among the spans.
    let parent: TraceParent

    init() {
        var random = SystemRandomNumberGenerator()
        parent = TraceParent(traceID: TraceID(high: random.next() | 1, low: random.next() | 1), spanID: SpanID(random.next() | 1),
                             sampled: false)
    }

    /// Text the ÉLITE journey types or holds that no span may carry (`EliteJourney`'s messages,
    /// report notes, bios; `JourneyContext.password`).
    static let userText = ["Jazz on Friday?", "Rude after the match.", "Messages checked.", "Warned.", "Hello from",
                           JourneyContext.password, "example.com"]

    /// A span as the receiver wrote it.
    struct Span {
        let fields: [String: Any]
        var name: String { fields["name"] as? String ?? "" }
        var id: String { fields["span_id"] as? String ?? "" }
        var parentID: String { fields["parent_span_id"] as? String ?? "" }
        var kind: Int { fields["kind"] as? Int ?? 0 }
        var service: String { (fields["resource"] as? [String: Any])?["service.name"] as? String ?? "" }
        var attributes: [String: Any] { fields["attributes"] as? [String: Any] ?? [:] }
        var links: [[String: String]] { fields["links"] as? [[String: String]] ?? [] }
        func attribute(_ key: String) -> String? { attributes[key].map { "\($0)" } }

        static let server = 2, client = 3, producer = 4, consumer = 5
    }

    /// The trace's spans once the whole tree has arrived: the consumers' and the push's spans
    /// are there and every span's parent is too (a parent ends, and is exported, after its
    /// children); the last spans seen after `patience` otherwise, for the checks to name what is
    /// missing.
    func collect(from collector: OTLPCollector, patience: Duration = .seconds(20)) async throws -> [Span] {
        let deadline = ContinuousClock.now + patience
        var spans: [Span] = []
        while ContinuousClock.now < deadline {
            spans = collector.spans.filter { $0["trace_id"] as? String == parent.traceID.hex }.map(Span.init)
            if (try? chain(in: spans)) != nil && orphans(in: spans).isEmpty { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        return spans
    }

    /// Spans whose parent is neither among the spans nor the app's span.
    func orphans(in spans: [Span]) -> [Span] {
        let ids = Set(spans.map(\.id))
        return spans.filter { $0.parentID != parent.spanID.hex && !ids.contains($0.parentID) }
    }

    /// The match's chain, edge to push, each step the descendant of the one before: discovery's
    /// Swipe, its MatchCreated producer span, messaging's consumer of it, the MatchOpened event it
    /// wrote to messaging's realtime outbox, push planning's consumer of that, the push job, the
    /// worker's consumer span, its token lookup in identity and the APNs request; and a chat
    /// message's, from messaging's SendMessage to push planning's consumer of its event.
    func chain(in spans: [Span]) throws -> [Span] {
        let byID = Dictionary(spans.map { ($0.id, $0) }) { first, _ in first }
        func ancestors(_ span: Span) -> [Span] {
            var chain: [Span] = []
            var current = span
            while let up = byID[current.parentID], chain.count < 64 {
                chain.append(up)
                current = up
            }
            return chain
        }
        func isDescendant(_ span: Span, of ancestor: Span) -> Bool { ancestors(span).contains { $0.id == ancestor.id } }
        func step(_ what: String, _ match: (Span) -> Bool, below above: Span?) throws -> Span {
            let found = spans.filter { span in match(span) && above.map { isDescendant(span, of: $0) } ?? true }
            guard let first = found.first else {
                throw JourneyTraceFailure("no \(what)\(above.map { " below \($0.service)'s \($0.name)" } ?? "") in the trace")
            }
            return first
        }
        // Among the Swipes, the one whose match was consumed (the journey's later likes made none).
        let consumed = try step("messaging span processing MatchCreated",
                                { $0.service == "messaging" && $0.kind == Span.consumer && $0.name == "process MatchCreated" }, below: nil)
        let swipe = try step("discovery Swipe server span above the consumed MatchCreated", {
            $0.service == "discovery" && $0.kind == Span.server && $0.name == "rendezvous.discovery.v1.Discovery/Swipe"
                && isDescendant(consumed, of: $0)
        }, below: nil)
        let created = try step("MatchCreated producer span", {
            $0.service == "discovery" && $0.kind == Span.producer && $0.name == "create MatchCreated"
        }, below: swipe)
        let opened = try step("MatchOpened producer span", {
            $0.service == "messaging" && $0.kind == Span.producer && $0.name == "create MatchOpened"
        }, below: consumed)
        let planned = try step("push planning's span processing MatchOpened", {
            $0.kind == Span.consumer && $0.name == "process MatchOpened" && $0.attribute("messaging.consumer.group.name") == "push-realtime"
        }, below: opened)
        let queued = try step("push job producer span", { $0.kind == Span.producer && $0.name == "create push" }, below: planned)
        let worked = try step("push worker's span", { $0.kind == Span.consumer && $0.name == "process push" }, below: queued)
        let lookup = try step("identity's ListActivePushTokens server span", {
            $0.service == "identity" && $0.kind == Span.server && $0.name == "rendezvous.identity.v1.DevicesInternal/ListActivePushTokens"
        }, below: worked)
        let apns = try step("APNs request span", { $0.kind == Span.client && $0.name == "POST /3/device/{device_token}" }, below: worked)
        // A chat message's: messaging's SendMessage (stored by a batch of sends, in a task of
        // its own), its MessageReceived producer span, push planning's consumer of that.
        let messagePlanned = try step("push planning's span processing MessageReceived", {
            $0.kind == Span.consumer && $0.name == "process MessageReceived" && $0.attribute("messaging.consumer.group.name") == "push-realtime"
        }, below: nil)
        let send = try step("messaging SendMessage server span above the planned MessageReceived", {
            $0.service == "messaging" && $0.kind == Span.server && $0.name.hasSuffix("/SendMessage") && isDescendant(messagePlanned, of: $0)
        }, below: nil)
        let received = try step("MessageReceived producer span", {
            $0.service == "messaging" && $0.kind == Span.producer && $0.name == "create MessageReceived"
        }, below: send)
        return [swipe, created, consumed, opened, planned, queued, worked, lookup, apns, send, received, messagePlanned]
    }

    /// Everything a trace of the journey must hold; throws naming the first thing that does not.
    func check(_ spans: [Span]) throws {
        let traceID = parent.traceID.hex
        guard !spans.isEmpty else { throw JourneyTraceFailure("no span of trace \(traceID) reached the collector") }
        let services = Set(spans.map(\.service))
        for service in ["identity", "discovery", "messaging", "media"] where !services.contains(service) {
            throw JourneyTraceFailure("no span of \(service) in the trace (only \(services.sorted()))")
        }
        if let orphan = orphans(in: spans).first {
            throw JourneyTraceFailure("\(orphan.service)'s \(orphan.name) names parent \(orphan.parentID), which is not in the trace")
        }
        let roots = spans.filter { $0.parentID == parent.spanID.hex }
        if let root = roots.first(where: { $0.kind != Span.server }) {
            throw JourneyTraceFailure("\(root.service)'s \(root.name) hangs off the app's span without being a server span")
        }
        let byID = Dictionary(spans.map { ($0.id, $0) }) { first, _ in first }
        for consumer in spans where consumer.kind == Span.consumer {
            // A consumed event's span: the producer's child, and linked to it.
            guard let producer = byID[consumer.parentID], producer.kind == Span.producer,
                  producer.name == consumer.name.replacingOccurrences(of: "process ", with: "create ") else {
                throw JourneyTraceFailure("\(consumer.service)'s \(consumer.name) is not the child of its producer span")
            }
            guard consumer.links.count == 1, consumer.links[0]["trace_id"] == traceID, consumer.links[0]["span_id"] == producer.id else {
                throw JourneyTraceFailure("\(consumer.service)'s \(consumer.name) links \(consumer.links), not its producer \(producer.id)")
            }
            let destination = String(consumer.name.dropFirst("process ".count))
            for (key, value) in [("messaging.system", "rendezvous"), ("messaging.operation", "process"),
                                 ("messaging.destination.name", destination)] where consumer.attribute(key) != value {
                throw JourneyTraceFailure("\(consumer.name) has \(key) \(consumer.attribute(key) ?? "unset"), not \(value)")
            }
        }
        _ = try chain(in: spans)
        try checkPrivacy(spans)
    }

    /// No span's name or attribute holds what a user typed, an email, a bearer or access token
    /// (a JWT starts `eyJ`) or a device token (64 hex digits).
    func checkPrivacy(_ spans: [Span]) throws {
        let token = try Regex("[0-9a-fA-F]{64}")
        for span in spans {
            let texts = [span.name] + span.attributes.map { "\($0.key)=\($0.value)" }
            for text in texts {
                if let leak = Self.leak(in: text, token: token) {
                    throw JourneyTraceFailure("\(span.service)'s \(span.name) carries \(leak): \(text)")
                }
            }
        }
    }
}

extension JourneyTrace {
    /// What of a user's or a secret `text` holds, if anything.
    static func leak(in text: String, token: some RegexComponent) -> String? {
        if let typed = userText.first(where: { text.contains($0) }) { return typed }
        if text.contains("@") { return "an email" }
        if text.lowercased().contains("bearer") || text.contains("eyJ") { return "a token" }
        if text.contains(token) { return "a device token" }
        return nil
    }
}

struct JourneyTraceFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
