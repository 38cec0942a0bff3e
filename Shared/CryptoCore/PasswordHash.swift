internal import Foundation

/// Password hashes with scrypt, stored as `scrypt$N$r$p$salt$hash` (salt and hash base64url).
///
/// Passwords are normalised to Unicode NFC before hashing (RFC 8265's OpaqueString profile
/// does the same), so the same password typed on two keyboards verifies.
package enum PasswordHash {
    /// scrypt cost parameters and the sizes of salt and hash.
    package struct Parameters: Hashable, Sendable {
        /// CPU/memory cost, a power of two.
        package var n: UInt64
        /// Block size.
        package var r: UInt32
        /// Parallelism.
        package var p: UInt32

        package init(n: UInt64, r: UInt32, p: UInt32) {
            self.n = n
            self.r = r
            self.p = p
        }

        /// N = 2^15, r = 8, p = 1: about 32 MiB and a few tens of milliseconds per hash; the
        /// interactive-login setting from the scrypt paper and libsodium.
        package static let interactive = Parameters(n: 1 << 15, r: 8, p: 1)

        /// Whether these parameters are within what `verify` accepts from a stored hash.
        ///
        /// The bounds keep a tampered or corrupted row from costing more than 256 MiB or 16 times
        /// the interactive work: N in 2^10...2^20, r in 1...16, p in 1...4, 128·N·r ≤ 256 MiB,
        /// N·r·p ≤ 2^22.
        package var isWithinVerifyBounds: Bool {
            guard n >= 1 << 10, n <= 1 << 20, n & (n - 1) == 0 else { return false }
            guard (1...16).contains(r), (1...4).contains(p) else { return false }
            // No overflow: n ≤ 2^20, r ≤ 16, p ≤ 4.
            return n * UInt64(r) * 128 <= 256 << 20 && n * UInt64(r) * UInt64(p) <= 1 << 22
        }
    }

    static let saltLength = 16
    static let hashLength = 32
    private static let scheme = "scrypt"

    /// A new encoded hash of `password` with a fresh random salt.
    ///
    /// Throws `.invalidParameters` if `parameters` are outside what `verify` would accept.
    package static func make(password: String, parameters: Parameters = .interactive) throws -> String {
        guard parameters.isWithinVerifyBounds else {
            throw CryptoError(.invalidParameters, "password hash: parameters outside verify bounds")
        }
        let salt = SecureRandom.bytes(saltLength)
        let hash = try Scrypt.derive(
            password: normalized(password), salt: salt,
            n: parameters.n, r: parameters.r, p: parameters.p, length: hashLength)
        return [scheme, String(parameters.n), String(parameters.r), String(parameters.p),
                Base64URL.encode(salt), Base64URL.encode(hash)].joined(separator: "$")
    }

    /// Whether `password` matches `encoded`, compared in constant time.
    ///
    /// Throws `.malformed` for text that is not an encoded hash and `.invalidParameters` for
    /// cost parameters outside `Parameters.isWithinVerifyBounds`; neither error quotes `encoded`.
    package static func verify(password: String, encoded: String) throws -> Bool {
        let stored = try parse(encoded)
        let hash = try Scrypt.derive(
            password: normalized(password), salt: stored.salt,
            n: stored.parameters.n, r: stored.parameters.r, p: stored.parameters.p, length: stored.hash.count)
        return ConstantTime.equals(hash, stored.hash)
    }

    /// The parameters an encoded hash was made with, to decide whether to rehash after a
    /// successful sign-in.
    package static func parameters(of encoded: String) throws -> Parameters {
        try parse(encoded).parameters
    }

    private static func parse(_ encoded: String) throws -> (parameters: Parameters, salt: [UInt8], hash: [UInt8]) {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == scheme,
              let n = decimal(fields[1], as: UInt64.self),
              let r = decimal(fields[2], as: UInt32.self),
              let p = decimal(fields[3], as: UInt32.self) else {
            throw CryptoError(.malformed, "password hash: not an scrypt$N$r$p$salt$hash string")
        }
        let parameters = Parameters(n: n, r: r, p: p)
        guard parameters.isWithinVerifyBounds else {
            throw CryptoError(.invalidParameters, "password hash: stored parameters outside verify bounds")
        }
        let salt = try Base64URL.decode(fields[4])
        let hash = try Base64URL.decode(fields[5])
        guard (8...64).contains(salt.count), (16...64).contains(hash.count) else {
            throw CryptoError(.malformed, "password hash: salt or hash length out of range")
        }
        return (parameters, salt, hash)
    }

    /// Plain ASCII digits without sign or leading zero (so each value has one spelling).
    private static func decimal<Value: FixedWidthInteger>(_ text: Substring, as: Value.Type) -> Value? {
        let digits = text.utf8
        guard let first = digits.first, first != UInt8(ascii: "0") || digits.count == 1,
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Value(text)
    }

    private static func normalized(_ password: String) -> [UInt8] {
        Array(password.precomposedStringWithCanonicalMapping.utf8)
    }
}
