import RPC
import Testing

@Suite struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func parse_specExample_readsEveryField() throws {
        let parent = try #require(TraceParent(header: Self.valid))
        #expect(parent.traceID.hex == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parent.spanID.hex == "00f067aa0ba902b7")
        #expect(parent.isSampled)
        #expect(parent.header == Self.valid)
        #expect(parent.traceID.bytes == [0x4B, 0xF9, 0x2F, 0x35, 0x77, 0xB3, 0x4D, 0xA6,
                                         0xA3, 0xCE, 0x92, 0x9D, 0x0E, 0x0E, 0x47, 0x36])
    }

    @Test func format_unsampled_writesFlagsZero() {
        let parent = TraceParent(traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), sampled: false)
        #expect(parent.header == "00-00000000000000010000000000000002-0000000000000003-00")
        #expect(TraceParent(header: parent.header) == parent)
    }

    @Test(arguments: [
        ("uppercase hex", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"),
        ("uppercase flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A"),
        ("all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
        ("all-zero parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"),
        ("version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        ("version 00 with a suffix", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"),
        ("short trace id", "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01"),
        ("non-hex", "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01"),
        ("wrong separators", "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01"),
        ("later version, suffix without dash", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"),
        ("empty", ""),
        ("non-ASCII", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-é1"),
    ])
    func parse_invalid_isNil(_ reason: String, _ header: String) {
        #expect(TraceParent(header: header) == nil, "\(reason)")
    }

    @Test func parse_laterVersion_readsVersion00FieldsAndWritesVersion00() throws {
        let parent = try #require(TraceParent(header: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future"))
        #expect(parent.header == Self.valid)
    }

    @Test func metadata_duplicateTraceparent_isIgnored() {
        var metadata = Metadata()
        metadata.addString(Self.valid, forKey: "traceparent")
        #expect(metadata.traceParent != nil)
        metadata.addString(Self.valid, forKey: "traceparent")
        #expect(metadata.traceParent == nil)
        #expect(MetadataExtractor().extract(key: "traceparent", from: metadata) == nil)
    }

    @Test func traceState_splitFields_joinInOrder() throws {
        let state = try #require(TraceState(headers: ["rojo=00f067aa0ba902b7 ", " congo=t61rcWkgMzE,", "tenant@vendor=x"]))
        #expect(state.header == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE,tenant@vendor=x")
    }

    @Test(arguments: [
        "Upper=1",                 // keys are lowercase
        "rojo",                    // no value
        "rojo=a,rojo=b",           // a key twice
        "rojo=a=b",                // '=' in a value
        "rojo=",                   // empty value
        "1abc=x",                  // a simple key starts with a letter
        "a@b@c=x",                 // two '@'
    ])
    func traceState_invalid_isNil(_ header: String) {
        #expect(TraceState(headers: [header]) == nil)
    }

    @Test func traceState_thirtyThreeMembers_isNil() {
        let members = (0..<33).map { "k\($0)=v" }.joined(separator: ",")
        #expect(TraceState(headers: [members]) == nil)
        #expect(TraceState(headers: [members.split(separator: ",").dropFirst().joined(separator: ",")]) != nil)
    }

    @Test func injector_replacesEarlierValue() {
        var metadata = Metadata(["traceparent": "old", "other": "kept"])
        MetadataInjector().inject(Self.valid, forKey: "traceparent", into: &metadata)
        #expect(metadata[string: "traceparent"] == Self.valid)
        #expect(metadata.count == 2)
    }
}
