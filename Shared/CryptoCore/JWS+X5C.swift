package import Foundation

extension JWS {
    /// The longest x5c token accepted by default: three certificates make App Store JWS ~5 KiB.
    package static let defaultMaximumX5CLength = 64 * 1024

    /// Verifies an ES256 JWS whose `x5c` header carries its certificate chain (leaf first,
    /// standard base64 DER, RFC 7515 §4.1.6), trusting only the roots in `x5cRootsPEM`: the
    /// App Store's signed transactions and renewal info.
    ///
    /// The chain is checked at `at` (now if nil), with the `markers` its certificates must carry
    /// (`X509ChainVerifier.verify`), then the signature with the leaf's key.
    /// Throws `.malformed` when `x5c` is missing or bad, the chain errors of
    /// `X509ChainVerifier.verify`, and `.badSignature`.
    package static func verify(
        token: String, x5cRootsPEM: [UInt8], at: Date? = nil, markers: [Int: String] = [:],
        maximumLength: Int = defaultMaximumX5CLength
    ) throws -> VerifiedJWS {
        let parsed = try parse(token, allowedAlgorithms: [.es256], maximumLength: maximumLength)
        guard let entries = parsed.header["x5c"]?.arrayValue else {
            throw CryptoError(.malformed, "JWS: x5c header missing")
        }
        let chain = try entries.map { entry -> [UInt8] in
            guard let text = entry.stringValue, let der = Data(base64Encoded: text) else {
                throw CryptoError(.malformed, "JWS: x5c entry is not base64")
            }
            return Array(der)
        }
        let leafKey = try X509ChainVerifier.verify(chain: chain, trustedRootsPEM: x5cRootsPEM, at: at, markers: markers)
        guard leafKey.isValidSignature(parsed.signature, for: parsed.signingInput) else {
            throw CryptoError(.badSignature, "JWS: signature does not verify with the x5c leaf")
        }
        return VerifiedJWS(header: parsed.header, algorithm: parsed.algorithm, keyID: nil, payload: parsed.payload)
    }
}
