import Contracts
import Testing

/// Values of rendezvous.events.v1 (proto-docs/rendezvous/events/v1/events.proto) and the
/// google.protobuf.Timestamp layout it embeds, and of rendezvous.bench.v1.
extension ConformanceCase {
    static let bench: [ConformanceCase] = {
        let request = "rendezvous.bench.v1.GetAccountRequest"
        let account = "rendezvous.bench.v1.Account"
        return [
            ConformanceCase("default", Bench.GetAccountRequest(), proto: request, json: "{}"),
            ConformanceCase("aid", Bench.GetAccountRequest(aid: 100_000), proto: request, json: #"{"aid": 100000}"#),
            ConformanceCase("negativeAid", Bench.GetAccountRequest(aid: Int32.min), proto: request, json: #"{"aid": -2147483648}"#),
            ConformanceCase("default", Bench.Account(), proto: account, json: "{}"),
            ConformanceCase("full", Bench.Account(aid: 7, abalance: -4_200), proto: account, json: #"{"aid": 7, "abalance": -4200}"#),
        ]
    }()

    static let events: [ConformanceCase] = {
        let request = "rendezvous.events.v1.WatchEventsRequest"
        let event = "rendezvous.events.v1.Event"
        var full = Events.Event()
        full.cursor = 9_007_199_254_740_993
        full.id = "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b"
        full.type = "MatchCreated"
        full.app = "firstdate"
        full.aggregateID = "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"
        full.payload = [0x0a, 0x03, 0x61, 0x62, 0x63, 0x00, 0xff]
        full.occurredAt = Timestamp(seconds: 1_795_000_000, nanos: 123_456_000)
        var emptyTimestamp = Events.Event()
        emptyTimestamp.occurredAt = Timestamp()
        var unicode = Events.Event()
        unicode.type = unicodeText
        return [
            ConformanceCase("default", Events.WatchEventsRequest(), proto: request, json: "{}"),
            ConformanceCase("cursorAndTypes", Events.WatchEventsRequest(afterCursor: 42, types: ["MatchCreated", "UserBlocked"]),
                            proto: request, json: #"{"after_cursor": "42", "types": ["MatchCreated", "UserBlocked"]}"#),
            ConformanceCase("maxCursor", Events.WatchEventsRequest(afterCursor: Int64.max), proto: request,
                            json: #"{"after_cursor": "9223372036854775807"}"#),
            ConformanceCase("negativeCursor", Events.WatchEventsRequest(afterCursor: -1), proto: request,
                            json: #"{"after_cursor": "-1"}"#),
            ConformanceCase("occurredAfter", Events.WatchEventsRequest(types: ["SessionsRevoked"],
                                                                       occurredAfter: Timestamp(seconds: 1_795_000_000, nanos: 5_000_000)),
                            proto: request, json: #"{"types": ["SessionsRevoked"], "occurred_after": "2026-11-18T11:06:40.005Z"}"#),
            ConformanceCase("default", Events.Event(), proto: event, json: "{}"),
            ConformanceCase("full", full, proto: event, json: """
                {"cursor": "9007199254740993", "id": "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b", "type": "MatchCreated",
                 "app": "firstdate", "aggregate_id": "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e", "payload": "CgNhYmMA/w==",
                 "occurred_at": "2026-11-18T11:06:40.123456Z"}
                """),
            ConformanceCase("emptyTimestamp", emptyTimestamp, proto: event, json: #"{"occurred_at": "1970-01-01T00:00:00Z"}"#),
            ConformanceCase("unicodeType", unicode, proto: event, json: #"{"type": \#(unicodeJSON)}"#),
        ]
    }()
}
