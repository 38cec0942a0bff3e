import CryptoCore
package import Foundation

/// A position in a list ordered by (time, id), newest first, as an opaque page token: every
/// service's list methods page this way (AIP-158). Each service names its own error for a
/// token or size it refuses.
package struct PageCursor: Sendable, Equatable {
    /// The time of the last row served, in microseconds since the epoch.
    package var microseconds: Int64
    /// The id of the last row served.
    package var id: UUID

    package init(microseconds: Int64, id: UUID) {
        self.microseconds = microseconds
        self.id = id
    }

    /// The cursor in `token`; nil for an empty token, `invalid` for anything that is not one of ours.
    package static func parse<Failure: Error>(_ token: String, invalid: Failure) throws(Failure) -> PageCursor? {
        guard !token.isEmpty else { return nil }
        guard token.utf8.count <= 128, let bytes = try? Base64URL.decode(token) else { throw invalid }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".")
        guard parts.count == 2, let microseconds = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
            throw invalid
        }
        return PageCursor(microseconds: microseconds, id: id)
    }

    /// The token that resumes after this position.
    package var token: String {
        Base64URL.encode(Array("\(microseconds).\(id.uuidString.lowercased())".utf8))
    }

    /// Rows per page: 0 means `defaultSize`, larger than `maximumSize` is cut to it, negative is
    /// `invalid` (AIP-158).
    package static func pageSize<Failure: Error>(_ requested: Int32, defaultSize: Int, maximumSize: Int,
                                                 invalid: Failure) throws(Failure) -> Int {
        guard requested >= 0 else { throw invalid }
        return requested == 0 ? defaultSize : min(Int(requested), maximumSize)
    }
}
