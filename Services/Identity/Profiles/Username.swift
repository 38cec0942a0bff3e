/// A username an account chooses: 3–30 of `a-z`, `0-9` and `_`, stored lowercase, unique in
/// its app. Generated `anon-xxxxxx` names (with a hyphen) stay valid for the accounts that have
/// them, and no one can choose one.
struct Username: Sendable, Hashable {
    let value: String

    static let lengths = 3...30

    /// Trims and lower-cases `text`; INVALID_ARGUMENT `INVALID_USERNAME` unless what is left
    /// follows the rules.
    init(_ text: String) throws(ProfileError) {
        let normalized = text.trimmedOfWhitespace.lowercased()
        guard Self.lengths.contains(normalized.utf8.count),
              normalized.utf8.allSatisfy({ Self.isAllowed($0) }) else { throw .invalidUsername }
        value = normalized
    }

    /// The name to look an account up by: trimmed and lower-cased, nil when no account could
    /// have it (so the lookup is NOT_FOUND without a query).
    static func lookupKey(_ text: String) -> String? {
        let normalized = text.trimmedOfWhitespace.lowercased()
        guard (1...64).contains(normalized.utf8.count) else { return nil }
        return normalized
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "_")
    }
}
