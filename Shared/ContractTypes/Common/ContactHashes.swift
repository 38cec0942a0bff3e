/// The form of a hashed contact (identity/v1/contacts.proto): lowercase hex SHA-256, as devices
/// send them. Both ends of the contract check it the same way.
public enum ContactHashes {
    /// At most this many hashes per call (ImportContacts, MatchContacts).
    public static let maximumPerCall = 1_000

    /// Whether `text` is 64 lowercase hex digits.
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
