import CryptoCore
import Foundation

/// Where a feed's next page starts: the moment its ranking was fixed, and the score and id of
/// the last card served (cards are ordered by score descending, then id). Base64url of
/// `f1.<as of µs>.<score>.<uuid>`.
struct FeedToken: Sendable, Equatable {
    var asOf: Int64
    var score: Int64
    var id: UUID

    static func parse(_ token: String) throws(DiscoveryError) -> FeedToken? {
        guard !token.isEmpty else { return nil }
        guard token.utf8.count <= 160, let bytes = try? Base64URL.decode(token) else { throw .invalidPageToken }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".")
        guard parts.count == 4, parts[0] == "f1", let asOf = Int64(parts[1]), let score = Int64(parts[2]),
              let id = UUID(uuidString: String(parts[3])) else { throw .invalidPageToken }
        return FeedToken(asOf: asOf, score: score, id: id)
    }

    var token: String {
        Base64URL.encode(Array("f1.\(asOf).\(score).\(id.uuidString.lowercased())".utf8))
    }
}
