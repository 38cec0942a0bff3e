import Contracts
import CryptoCore
import Foundation

/// Signs and checks download URLs: `/media/v1/blobs/<id>?expires=<unix seconds>&sig=<hex>`, and
/// for a photo's thumbnails `/media/v1/blobs/<id>/<side>?…`, the signature an HMAC-SHA256 over
/// `<path>\n<expires>` under the service's URL secret.
struct URLSigner: Sendable {
    let secret: [UInt8]

    static let pathPrefix = "/media/v1/blobs/"

    /// What a verified URL grants: a blob, whole or as one of its thumbnails.
    struct Grant: Equatable {
        var blob: UUID
        /// The thumbnail's long side; nil for the blob itself.
        var side: Int32?
    }

    static func path(of blob: UUID, side: Int32? = nil) -> String {
        pathPrefix + blob.uuidString.lowercased() + (side.map { "/\($0)" } ?? "")
    }

    func sign(blob: UUID, side: Int32? = nil, expires: Int64) -> String {
        let path = Self.path(of: blob, side: side)
        return "\(path)?expires=\(expires)&sig=\(hex(signature(path: path, expires: expires)))"
    }

    /// A photo's thumbnails, each signed with `expires`.
    func thumbnails(of blob: UUID, expires: Int64) -> [Media.Thumbnail] {
        PhotoRenderer.thumbnailSides.map { Media.Thumbnail(maxSide: $0, url: sign(blob: blob, side: $0, expires: expires)) }
    }

    /// A listed photo's full-size URL and thumbnails, valid for an hour; none for a photo that
    /// cannot be rendered (`status` FAILED).
    func photoLinks(blob: UUID, status: Media.RenditionStatus) -> (url: String, thumbnails: [Media.Thumbnail]) {
        guard status != .failed else { return ("", []) }
        let expires = Int64(Date().timeIntervalSince1970) + 3_600
        return (sign(blob: blob, expires: expires), thumbnails(of: blob, expires: expires))
    }

    /// What a request's path and query grant at `now` (Unix seconds); nil for a URL that is
    /// expired, tampered with, or not one of ours.
    func verify(path: String, expires: String?, signature: String?, now: Int64) -> Grant? {
        guard path.hasPrefix(Self.pathPrefix) else { return nil }
        let parts = path.dropFirst(Self.pathPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let id = UUID(uuidString: String(parts[0])) else { return nil }
        var side: Int32?
        if parts.count == 2 {
            guard let value = Int32(parts[1]), PhotoRenderer.thumbnailSides.contains(value) else { return nil }
            side = value
        }
        guard Self.path(of: id, side: side) == path,
              let expiresText = expires, let expiry = Int64(expiresText), String(expiry) == expiresText,
              let signature, let given = Self.bytes(hex: signature), expiry >= now else { return nil }
        return ConstantTime.equals(given, self.signature(path: path, expires: expiry)) ? Grant(blob: id, side: side) : nil
    }

    private func signature(path: String, expires: Int64) -> [UInt8] {
        HMACSHA256.authenticate(key: secret, message: Array("\(path)\n\(expires)".utf8))
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private static func bytes(hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = 0
        while index < characters.count {
            guard let high = nibble(characters[index]), let low = nibble(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
