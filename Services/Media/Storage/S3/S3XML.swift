import Foundation

/// The little of S3's XML answers media reads: one element's text (an upload id, an error
/// code). S3's documents are flat enough that the first `<Name>…</Name>` is the one meant.
enum S3XML {
    /// The unescaped text of the first element `name`, or nil.
    static func firstValue(of name: String, in body: [UInt8]) -> String? {
        let text = String(decoding: body, as: UTF8.self)
        guard let open = text.range(of: "<\(name)>"),
              let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else { return nil }
        return unescape(String(text[open.upperBound..<close.lowerBound]))
    }

    /// `&amp;`-style escapes undone (the five XML predefines).
    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `text` escaped for an element's content.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
