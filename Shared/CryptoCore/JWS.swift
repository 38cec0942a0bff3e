/// JSON Web Signatures in compact serialization (RFC 7515), ES256 to sign, ES256 and RS256 to
/// verify.
package enum JWS {
    /// The longest token `parse` accepts by default; ours and providers' ID tokens are ~1 KiB.
    package static let defaultMaximumLength = 16 * 1024

    /// Signs `payload` with `key` (ES256), setting `alg` and `kid` in `header` over any given.
    package static func sign(header: [String: JSONValue] = [:], payload: [UInt8], key: ECSigningKey) throws -> String {
        var header = header
        header["alg"] = .string(JWSAlgorithm.es256.rawValue)
        header["kid"] = .string(key.keyID)
        let signingInput = Base64URL.encode(JSONValue.object(header).serialized()) + "." + Base64URL.encode(payload)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Decodes a compact JWS and checks its shape, without checking the signature.
    ///
    /// Strict: at most `maximumLength` bytes, exactly three base64url parts, a JSON object
    /// header whose `alg` is in `allowedAlgorithms` (never `none` or HMAC, which
    /// `JWSAlgorithm` cannot name), a string `kid` if present, and no `crit` (we implement no
    /// extensions, RFC 7515 §4.1.11). Throws `.malformed` or `.unsupportedAlgorithm`.
    package static func parse(
        _ token: String, allowedAlgorithms: Set<JWSAlgorithm>, maximumLength: Int = defaultMaximumLength
    ) throws -> ParsedJWS {
        let bytes = token.utf8
        guard bytes.count <= maximumLength else { throw CryptoError(.malformed, "JWS: longer than \(maximumLength) bytes") }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw CryptoError(.malformed, "JWS: not three dot-separated parts") }
        let header = try JSONValue.parseObject(Base64URL.decode(Substring(parts[0])))
        guard let name = header["alg"]?.stringValue else { throw CryptoError(.malformed, "JWS: header without alg") }
        guard let algorithm = JWSAlgorithm(rawValue: name), allowedAlgorithms.contains(algorithm) else {
            throw CryptoError(.unsupportedAlgorithm, "JWS: algorithm not allowed")
        }
        guard header["crit"] == nil else { throw CryptoError(.malformed, "JWS: critical header extensions") }
        var keyID: String?
        if let value = header["kid"] {
            guard let string = value.stringValue else { throw CryptoError(.malformed, "JWS: kid is not a string") }
            keyID = string
        }
        let payload = try Base64URL.decode(Substring(parts[1]))
        let signature = try Base64URL.decode(Substring(parts[2]))
        // Safe: parts[1] ends where the second dot starts, inside `bytes`.
        let signingInput = Array(bytes[parts[0].startIndex..<parts[1].endIndex])
        return ParsedJWS(header: header, algorithm: algorithm, keyID: keyID, payload: payload,
                         signingInput: signingInput, signature: signature)
    }

    /// Verifies a compact JWS with the key its `kid` names in `keys`.
    ///
    /// The key's type fixes the algorithm (EC ↔ ES256, RSA ↔ RS256): a token whose `alg` does
    /// not match is refused with `.unsupportedAlgorithm` before any signature check. A token
    /// without `kid`, or with one `keys` does not hold, throws `.unknownKeyID` (refresh the set
    /// and retry once); a bad signature throws `.badSignature`.
    package static func verify(
        token: String, keys: JWKSet, allowedAlgorithms: Set<JWSAlgorithm> = [.es256, .rs256],
        maximumLength: Int = defaultMaximumLength
    ) throws -> VerifiedJWS {
        let parsed = try parse(token, allowedAlgorithms: allowedAlgorithms, maximumLength: maximumLength)
        guard let keyID = parsed.keyID, let key = keys[keyID] else {
            throw CryptoError(.unknownKeyID, "JWS: no key for the token's kid")
        }
        guard key.algorithm == parsed.algorithm else {
            throw CryptoError(.unsupportedAlgorithm, "JWS: alg does not match the key type")
        }
        guard key.isValidSignature(parsed.signature, for: parsed.signingInput) else {
            throw CryptoError(.badSignature, "JWS: signature does not verify")
        }
        return VerifiedJWS(header: parsed.header, algorithm: parsed.algorithm, keyID: keyID, payload: parsed.payload)
    }
}
