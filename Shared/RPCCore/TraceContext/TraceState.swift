/// The `tracestate` header of W3C Trace Context (section 3.3): up to 32 `key=value` members,
/// comma-separated, passed on unchanged with the trace.
package struct TraceState: Sendable, Hashable {
    /// The metadata (header) key.
    package static let headerName = "tracestate"
    /// The most members a valid header holds (section 3.3.1.1).
    static let maxMembers = 32

    /// The members in order, without optional whitespace around them.
    package private(set) var members: [String]

    /// The header value: the members joined by commas.
    package var header: String { members.joined(separator: ",") }

    /// Parses the values of every `tracestate` field (a header may be split over several);
    /// nil when any member is malformed, a key repeats or there are more than 32 members,
    /// which the spec answers by dropping the whole header. Empty members are allowed and skipped.
    package init?(headers: [String]) {
        var members: [String] = []
        var keys = Set<Substring>()
        for value in headers {
            for raw in value.split(separator: ",", omittingEmptySubsequences: false) {
                let member = raw.trimmingOptionalWhitespace()
                if member.isEmpty { continue }
                guard let equals = member.firstIndex(of: "="),
                      Self.isValidKey(member[..<equals]),
                      Self.isValidValue(member[member.index(after: equals)...]),
                      keys.insert(member[..<equals]).inserted else { return nil }
                members.append(String(member))
            }
        }
        guard !members.isEmpty, members.count <= Self.maxMembers else { return nil }
        self.members = members
    }

    /// `simple-key` or `tenant-id@system-id` (section 3.3.1.3.1).
    static func isValidKey(_ key: Substring) -> Bool {
        let parts = key.split(separator: "@", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return isKeyPart(parts[0], maxLength: 256, firstMayBeDigit: false)
        case 2:
            return isKeyPart(parts[0], maxLength: 241, firstMayBeDigit: true)
                && isKeyPart(parts[1], maxLength: 14, firstMayBeDigit: false)
        default:
            return false
        }
    }

    private static func isKeyPart(_ part: Substring, maxLength: Int, firstMayBeDigit: Bool) -> Bool {
        let bytes = part.utf8
        guard let first = bytes.first, bytes.count <= maxLength else { return false }
        let isLower = { (byte: UInt8) in byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard isLower(first) || (firstMayBeDigit && isDigit(first)) else { return false }
        return bytes.allSatisfy { byte in
            isLower(byte) || isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "/")
        }
    }

    /// 1–256 printable ASCII characters other than `,` and `=`, not ending in a space.
    static func isValidValue(_ value: Substring) -> Bool {
        let bytes = value.utf8
        guard let last = bytes.last, bytes.count <= 256, last != 0x20 else { return false }
        return bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "=") }
    }
}

private extension Substring {
    /// Without the spaces and tabs the list syntax allows around members (`OWS`).
    func trimmingOptionalWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
