import CryptoCore
import Foundation

/// Signs and checks download URLs: `/media/v1/blobs/<id>?expires=<unix seconds>&sig=<hex>`, the
/// signature an HMAC-SHA256 over `<path>\n<expires>` under the service's URL secret.
struct URLSigner: Sendable {
    let secret: [UInt8]

    static let pathPrefix = "/media/v1/blobs/"

    static func path(of blob: UUID) -> String { pathPrefix + blob.uuidString.lowercased() }

    func sign(blob: UUID, expires: Int64) -> String {
        let path = Self.path(of: blob)
        return "\(path)?expires=\(expires)&sig=\(hex(signature(path: path, expires: expires)))"
    }

    /// The blob a request's path and query grant at `now` (Unix seconds); nil for a URL that is
    /// expired, tampered with, or not one of ours.
    func verify(path: String, expires: String?, signature: String?, now: Int64) -> UUID? {
        guard path.hasPrefix(Self.pathPrefix), let id = UUID(uuidString: String(path.dropFirst(Self.pathPrefix.count))),
              Self.path(of: id) == path,
              let expiresText = expires, let expiry = Int64(expiresText), String(expiry) == expiresText,
              let signature, let given = Self.bytes(hex: signature), expiry >= now else { return nil }
        return ConstantTime.equals(given, self.signature(path: path, expires: expiry)) ? id : nil
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
