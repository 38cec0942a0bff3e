/// An email address as Identity stores it: trimmed and lower-cased, so one mailbox is one
/// account per app.
struct EmailAddress: Sendable, Hashable {
    let value: String

    /// Accepts `local@domain` with a 1–64 byte local part of printable ASCII without spaces or
    /// `@`, and a domain of at least two dot-separated labels of letters, digits and hyphens;
    /// 254 bytes at most (RFC 5321 §4.5.3.1). Throws INVALID_ARGUMENT `INVALID_EMAIL`.
    init(_ text: String) throws(IdentityError) {
        let normalized = text.trimmingWhitespace.lowercased()
        let bytes = Array(normalized.utf8)
        guard bytes.count <= 254, let at = bytes.firstIndex(of: UInt8(ascii: "@")) else { throw .invalidEmail }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        guard (1...64).contains(local.count),
              local.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "@") }),
              local.first != UInt8(ascii: "."), local.last != UInt8(ascii: ".") else { throw .invalidEmail }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy(Self.isLabel) else { throw .invalidEmail }
        value = normalized
    }

    private static func isLabel(_ label: ArraySlice<UInt8>) -> Bool {
        guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else {
            return false
        }
        return label.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-")
        }
    }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }
}
