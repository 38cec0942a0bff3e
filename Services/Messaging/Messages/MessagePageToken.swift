/// A ListMessages page token: the sequence the next page stays below, as "s<sequence>".
enum MessagePageToken {
    static func token(before sequence: Int64) -> String { "s\(sequence)" }

    /// The sequence to stay below, nil for the first page.
    static func parse(_ token: String) throws(MessagingError) -> Int64? {
        guard !token.isEmpty else { return nil }
        guard token.hasPrefix("s"), let sequence = Int64(token.dropFirst()), sequence > 0 else { throw .invalidPageToken }
        return sequence
    }
}
