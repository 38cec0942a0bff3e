@testable import RPC
import Testing
import Wire

/// Where `[String: String]` cannot hold what google.rpc.ErrorInfo's `map<string, string>` can.
@Suite struct ErrorInfoMetadataTests {
    /// Protobuf map keys are byte strings, so "é" (U+00E9) and "e\u{301}" are two keys; Swift's
    /// String equality is canonical equivalence, so the dictionary keeps one of them. Our own
    /// reasons and metadata keys are ASCII, where the two agree.
    @Test func decode_canonicallyEquivalentKeys_keepsOneEntry() throws {
        var writer = ProtoWriter()
        writer.writeMapEntry(field: 3, key: "\u{E9}", value: "precomposed")
        writer.writeMapEntry(field: 3, key: "e\u{301}", value: "decomposed")
        let info = try ErrorInfoMessage(serializedBytes: writer.bytes)
        withKnownIssue("[String: String] merges canonically equivalent protobuf map keys") {
            #expect(info.metadata.count == 2)
        }
        #expect(info.metadata == ["e\u{301}": "decomposed"])
    }
}
