import CryptoCore
import Foundation

/// Where a page of the committee's waitlist ends: the last member's (joined at, id), the
/// waitlist's order. Opaque to clients: base64url of `<microseconds>:<uuid>`.
struct WaitlistPageToken: Sendable, Equatable {
    var joinedAtMicroseconds: Int64
    var accountID: UUID

    /// The token's text.
    var text: String { Base64URL.encode(Array("\(joinedAtMicroseconds):\(accountID.uuidString.lowercased())".utf8)) }

    init(joinedAtMicroseconds: Int64, accountID: UUID) {
        self.joinedAtMicroseconds = joinedAtMicroseconds
        self.accountID = accountID
    }

    /// Parses a token this service issued; INVALID_ARGUMENT `INVALID_PAGE_TOKEN` otherwise.
    init(parsing text: String) throws(MembershipError) {
        guard text.utf8.count <= 128, let bytes = try? Base64URL.decode(Substring(text)),
              let decoded = String(bytes: bytes, encoding: .utf8) else { throw .invalidPageToken }
        let parts = decoded.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let micros = Int64(parts[0]), (0..<Self.year10000).contains(micros),
              let id = UUID(uuidString: String(parts[1])) else {
            throw .invalidPageToken
        }
        self.init(joinedAtMicroseconds: micros, accountID: id)
    }

    /// 10000-01-01 in microseconds since 1970: tokens name times before it.
    private static let year10000: Int64 = 253_402_300_800_000_000

    var joinedAt: Date { Date(timeIntervalSince1970: Double(joinedAtMicroseconds) / 1_000_000) }
}
