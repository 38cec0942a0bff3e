import Contracts
import Foundation

/// A message's validated body: a trimmed text of 1-`maxTextLength` characters, or a photo's
/// media id.
enum MessageBody: Sendable, Equatable {
    case text(String)
    case photo(UUID)

    static let maxTextLength = 2000
    static let maxClientMessageIDLength = 64

    init(_ body: Messaging.SendMessageRequest.Body?) throws(MessagingError) {
        switch body {
        case .text(let raw):
            let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw .emptyMessage }
            guard text.count <= Self.maxTextLength else { throw .messageTooLong(limit: Self.maxTextLength) }
            self = .text(text)
        case .photo(let photo):
            guard let id = UUID(uuidString: photo.mediaID) else { throw .invalidMediaID }
            self = .photo(id)
        case nil:
            throw .emptyMessage
        }
    }

    /// Whether `message` (stored earlier under the same client message id) has this body.
    func matches(_ message: Messaging.Message) -> Bool {
        switch (self, message.body) {
        case (.text(let text), .text(let stored)?): text == stored
        case (.photo(let id), .photo(let stored)?): id.uuidString.lowercased() == stored.mediaID
        default: false
        }
    }
}
