public import ContractTypes
public import Foundation

/// A member's copy of their own data: every service's `ExportMyData` (PersonalDataAPI.exportAll)
/// as one JSON document to read or take elsewhere.
public struct PersonalDataDocument: Sendable {
    /// One export per service, identity, discovery, messaging, production, media in that order.
    public var exports: [Privacy.PersonalDataExport]

    public init(exports: [Privacy.PersonalDataExport]) {
        self.exports = exports
    }

    /// A service's export; nil when the document has none of it.
    public func export(of service: PersonalDataAPI.Service) -> Privacy.PersonalDataExport? {
        exports.first { $0.service == service.rawValue }
    }

    /// The records of one section of one service, each a JSON object; empty when there is none.
    public func records(_ service: PersonalDataAPI.Service, _ section: String) throws -> [[String: Any]] {
        guard let records = export(of: service)?.sections.first(where: { $0.name == section })?.records else { return [] }
        return try records.map { record in
            guard let object = try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any] else {
                throw PersonalDataDocumentError(service: service.rawValue, section: section)
            }
            return object
        }
    }

    /// The document as UTF-8 JSON:
    /// `{"account_id", "app", "services": {"<service>": {"exported_at", "sections": {"<name>":
    /// {"description", "records": [...]}}, "files": [...]}}}`, keys sorted.
    public func jsonData() throws -> Data {
        var services: [String: Any] = [:]
        for export in exports {
            var sections: [String: Any] = [:]
            for section in export.sections {
                let records = try section.records.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
                sections[section.name] = ["description": section.description, "records": records]
            }
            var service: [String: Any] = ["exported_at": Self.text(export.exportedAt), "sections": sections]
            if export.service == PersonalDataAPI.Service.media.rawValue {
                service["files"] = export.files.map { file in
                    ["blob_id": file.blobID, "content_type": file.contentType, "size": file.size, "url": file.url,
                     "url_expires_at": Self.text(file.urlExpiresAt)] as [String: Any]
                }
            }
            services[export.service] = service
        }
        let document: [String: Any] = ["account_id": exports.first?.accountID ?? "", "app": exports.first?.app ?? "",
                                        "services": services]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// RFC 3339 in UTC with milliseconds; empty when unset.
    private static func text(_ timestamp: Timestamp?) -> String {
        guard let timestamp else { return "" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timestamp))
    }
}

/// A record of an export that is not a JSON object (the contract promises one).
public struct PersonalDataDocumentError: Error, Sendable, CustomStringConvertible {
    public var service: String
    public var section: String

    public var description: String { "\(service) export, section \(section): a record is not a JSON object" }
}
