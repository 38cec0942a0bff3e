import CryptoCore
import Foundation

/// A position in a list ordered by (time, id): the opaque page token of the list RPCs.
/// Tokens are base64url of `<microseconds>.<uuid>`; nothing in them is secret, they only
/// spare the server an OFFSET scan.
struct PageCursor: Sendable, Equatable {
    var microseconds: Int64
    var id: UUID

    /// The cursor in `token`; nil for an empty token, INVALID_ARGUMENT `INVALID_PAGE_TOKEN`
    /// for anything that is not one of ours.
    static func parse(_ token: String) throws(PagingError) -> PageCursor? {
        guard !token.isEmpty else { return nil }
        guard token.utf8.count <= 128, let bytes = try? Base64URL.decode(token) else { throw .invalidPageToken }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".")
        guard parts.count == 2, let microseconds = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
            throw .invalidPageToken
        }
        return PageCursor(microseconds: microseconds, id: id)
    }

    var token: String {
        Base64URL.encode(Array("\(microseconds).\(id.uuidString.lowercased())".utf8))
    }

    /// Rows per page: 0 means `defaultSize`, larger than `maximumSize` is cut to it, negative is
    /// INVALID_ARGUMENT `INVALID_PAGE_SIZE` (AIP-158).
    static func pageSize(_ requested: Int32, defaultSize: Int = 50, maximumSize: Int = 200) throws(PagingError) -> Int {
        guard requested >= 0 else { throw .invalidPageSize }
        return requested == 0 ? defaultSize : min(Int(requested), maximumSize)
    }
}
