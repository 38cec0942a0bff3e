/// How an app hashes its address book before `discovery.importContacts`: lowercase hex SHA-256
/// of the email lowercased and trimmed, or of the phone number in E.164 (contacts.proto). The
/// raw identifiers never leave the device.
public enum ContactHash {
    /// The hash of an email address (`" Maya@Example.com "` and `"maya@example.com"` hash alike).
    public static func email(_ email: String) -> String {
        hex(email.trimmingWhitespace.lowercased())
    }

    /// The hash of a phone number already in E.164 (`+15551234567`); nil for anything else.
    public static func phone(e164 phone: String) -> String? {
        let trimmed = phone.trimmingWhitespace
        guard trimmed.first == "+", (8...16).contains(trimmed.count),
              trimmed.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return hex(trimmed)
    }

    private static func hex(_ text: String) -> String { SHA256.hex(text) }
}

private extension String {
    var trimmingWhitespace: String {
        String(self.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
