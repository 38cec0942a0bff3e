import HTTP2
@testable import RPC
import Testing

@Suite struct MetadataTests {
    @Test func addString_lowercasesKey() {
        var metadata = Metadata()
        metadata.addString("Value Keeps Case", forKey: "X-Mixed-Case")
        #expect(metadata[string: "x-mixed-case"] == "Value Keeps Case")
        #expect(metadata.map(\.key) == ["x-mixed-case"])
    }

    @Test func keyValuePairsInit_lowercasesKeys_andKeepsOrder() {
        let metadata = Metadata(["B-Key": "1", "a-key": "2", "b-key": "3"])
        #expect(metadata.map(\.key) == ["b-key", "a-key", "b-key"])
        #expect(metadata[string: "b-key"] == "1")
    }

    @Test func subscripts_distinguishTextFromBinary() {
        var metadata = Metadata()
        metadata.addBinary([0xFF], forKey: "x-data-bin")
        metadata.addString("text", forKey: "x-text")
        #expect(metadata[binary: "x-data-bin"] == [0xFF])
        #expect(metadata[string: "x-data-bin"] == nil)
        #expect(metadata[binary: "x-text"] == nil)
    }

    @Test func removeAll_dropsEveryValueOfTheKey() {
        var metadata = Metadata(["x-a": "1", "x-b": "2", "x-a": "3"])
        metadata.removeAll(forKey: "x-a")
        #expect(metadata.map(\.key) == ["x-b"])
        #expect(metadata.count == 1)
    }

    static let reserved = [
        ":path", ":authority", "content-type", "te", "grpc-timeout", "grpc-encoding", "grpc-accept-encoding",
        "grpc-status", "grpc-message", "grpc-status-details-bin", "content-length", "connection", "host",
        "transfer-encoding", "upgrade", "keep-alive",
    ]

    @Test(arguments: reserved)
    func appendToHeaders_skipsReservedName(name: String) {
        var metadata = Metadata()
        metadata.addString("x", forKey: name)
        metadata.addString("kept", forKey: "x-custom")
        var headers: [HTTP2Header] = []
        metadata.append(to: &headers)
        #expect(headers == [HTTP2Header("x-custom", "kept")])
    }

    @Test(arguments: reserved)
    func initFromHeaders_skipsReservedName(name: String) {
        let metadata = Metadata(headers: [HTTP2Header(name, "x"), HTTP2Header("user-agent", "ua")])
        #expect(metadata.map(\.key) == ["user-agent"])
    }

    /// Names a reserved one's first letter and length do not settle: each stays metadata.
    @Test(arguments: ["tz", "hose", "upgrades", "keep-alivf", "grpc-statux", "grpc-timeoux", "content-typf",
                      "grpc-encodinf", "grpc-trace-bin", "transfer-encodinh", "grpc-accept-encodinf",
                      "grpc-status-details-bix", "custom-te"])
    func initFromHeaders_keepsNamesCloseToReservedOnes(name: String) {
        let metadata = Metadata(headers: [HTTP2Header(name, "q6ur")])
        #expect(metadata.map(\.key) == [name])
    }

    @Test func initFromHeaders_decodesBinary_paddedOrNot_andDropsUndecodable() {
        let metadata = Metadata(headers: [
            HTTP2Header("x-padded-bin", "q6ur"), HTTP2Header("x-short-bin", "/w=="), HTTP2Header("x-unpadded-bin", "/w"),
            HTTP2Header("x-broken-bin", "!!!"), HTTP2Header("x-text", "q6ur"),
        ])
        #expect(metadata[binary: "x-padded-bin"] == [0xAB, 0xAB, 0xAB])
        #expect(metadata[binary: "x-short-bin"] == [0xFF])
        #expect(metadata[binary: "x-unpadded-bin"] == [0xFF])
        #expect(metadata[binary: "x-broken-bin"] == nil)
        #expect(metadata[string: "x-text"] == "q6ur")
        #expect(metadata.count == 4)
    }

    @Test func appendToHeaders_base64EncodesBinaryValues() {
        var metadata = Metadata()
        metadata.addBinary([0x00, 0xFF, 0x80], forKey: "x-raw-bin")
        var headers: [HTTP2Header] = []
        metadata.append(to: &headers)
        #expect(headers == [HTTP2Header("x-raw-bin", "AP+A", indexed: false)])
    }
}
