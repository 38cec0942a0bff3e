import ContractTypes
import Foundation
import GatewayClient
import Testing

/// The five exports as one document, without I/O: its shape, records as JSON objects (not
/// strings), files only where media gave them, and a record that is not an object refused.
@Suite struct PersonalDataDocumentTests {
    static let member = "0f97282d-eddd-4fa4-b820-634bb437c51f"

    static func export(_ service: String, _ sections: [Privacy.PersonalDataSection],
                       files: [Privacy.PersonalDataFile] = []) -> Privacy.PersonalDataExport {
        Privacy.PersonalDataExport(accountID: member, app: "elite", service: service,
                                   exportedAt: Timestamp(seconds: 1_795_820_742), sections: sections, files: files)
    }

    @Test func jsonData_nestsServicesSectionsAndRecords_andMediaFiles() throws {
        let document = PersonalDataDocument(exports: [
            Self.export("identity", [.init(name: "accounts", description: "The account.",
                                           records: [#"{"id": "\#(Self.member)", "tags": ["jazz"]}"#])]),
            Self.export("media", [.init(name: "blobs", description: "Files.", records: [])],
                        files: [.init(blobID: "b1", contentType: "image/png", size: 7, url: "/media/v1/blobs/b1?expires=1&sig=00",
                                      urlExpiresAt: Timestamp(seconds: 1_795_824_342))]),
        ])
        let json = try #require(try JSONSerialization.jsonObject(with: document.jsonData()) as? [String: Any])
        #expect(json["account_id"] as? String == Self.member && json["app"] as? String == "elite")
        let services = try #require(json["services"] as? [String: [String: Any]])
        #expect(Set(services.keys) == ["identity", "media"])
        let identity = try #require(services["identity"])
        #expect(identity["exported_at"] as? String == "2026-11-27T23:05:42.000Z")
        #expect(identity["files"] == nil, "files are media's")
        let accounts = try #require((identity["sections"] as? [String: [String: Any]])?["accounts"])
        #expect(accounts["description"] as? String == "The account.")
        let record = try #require((accounts["records"] as? [[String: Any]])?.first)
        #expect(record["id"] as? String == Self.member && record["tags"] as? [String] == ["jazz"])
        let file = try #require((services["media"]?["files"] as? [[String: Any]])?.first)
        #expect(file["url"] as? String == "/media/v1/blobs/b1?expires=1&sig=00" && file["size"] as? Int == 7)
        #expect(file["url_expires_at"] as? String == "2026-11-28T00:05:42.000Z")
        #expect(try document.records(.identity, "accounts").count == 1)
        #expect(try document.records(.discovery, "swipes").isEmpty, "a service the document lacks has no records")
    }

    @Test func aRecordThatIsNotAnObject_isRefused() {
        let document = PersonalDataDocument(exports: [Self.export("identity", [.init(name: "accounts", description: "", records: ["[1]"])])])
        #expect(throws: PersonalDataDocumentError.self) { try document.records(.identity, "accounts") }
    }
}
