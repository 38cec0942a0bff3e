internal import COpenSSL
package import Foundation

/// Verifies an X.509 chain (RFC 5280) to configured roots, as App Store signed transactions
/// carry one in their JWS `x5c` header.
package enum X509ChainVerifier {
    /// The most certificates a chain may hold (Apple sends leaf, intermediate and root).
    package static let maximumChainLength = 5
    /// The largest DER certificate accepted.
    package static let maximumCertificateLength = 16 * 1024

    /// Apple's marker extensions of the App Store's signing chain, by depth, as Apple's App Store
    /// Server Library checks them: the receipt-signing leaf (1.2.840.113635.100.6.11.1) and the
    /// Worldwide Developer Relations intermediate (1.2.840.113635.100.6.2.1). Apple Root CA - G3
    /// issues other certificates too (Apple Pay's, a developer's), whose holders could otherwise
    /// sign "transactions" that pass.
    package static let appStoreMarkers = [0: "1.2.840.113635.100.6.11.1", 1: "1.2.840.113635.100.6.2.1"]

    /// Verifies `chain` (DER, leaf first, then intermediates; a root at the end is allowed and
    /// ignored as a trust anchor) to one of the roots in `trustedRootsPEM`, at time `at` (now if
    /// nil), and returns the leaf's public key, which must be EC P-256.
    ///
    /// Throws `.malformed` for bad input, `.expired` / `.notYetValid` for a certificate outside
    /// its validity, `.untrustedChain` for every other verification failure (with OpenSSL's
    /// reason and the failing depth, and for a leaf that is itself a CA), `.unsupportedAlgorithm`
    /// for a non-P-256 leaf key.
    ///
    /// `markers`: extensions (dotted OIDs) the verified chain's certificates must carry, by depth
    /// (0: the leaf, 1: the CA that issued it): Apple marks the App Store's signing leaf and its
    /// intermediate so, and any other certificate under the same root (a developer's Apple Pay
    /// certificate, say) must not pass for them. A missing one is `.untrustedChain`.
    package static func verify(chain: [[UInt8]], trustedRootsPEM: [UInt8], at: Date?,
                               markers: [Int: String] = [:]) throws -> ECVerifyingKey {
        guard !chain.isEmpty, chain.count <= maximumChainLength else {
            throw CryptoError(.malformed, "X.509: chain must hold 1 to \(maximumChainLength) certificates")
        }
        guard chain.allSatisfy({ $0.count <= maximumCertificateLength }) else {
            throw CryptoError(.malformed, "X.509: certificate too large")
        }
        let certificates = try chain.map { try Certificate(der: $0) }
        let roots = try CryptoError.translating(.malformed) { try Certificate.readAll(pem: trustedRootsPEM) }
        let store = try CertificateStore(trusting: roots)
        // Safe: `chain` is non-empty (checked above), so `certificates` is too.
        let leaf = certificates.first!
        let context = try CertificateStoreContext(
            store: store, leaf: leaf, intermediates: CertificateStack(Array(certificates.dropFirst())))
        if let at {
            X509_STORE_CTX_set_time(context.pointer, 0, time_t(at.timeIntervalSince1970.rounded(.down)))
        }
        ERR_clear_error()
        guard X509_verify_cert(context.pointer) == 1 else {
            let error = X509_STORE_CTX_get_error(context.pointer)
            let depth = X509_STORE_CTX_get_error_depth(context.pointer)
            ERR_clear_error()
            // Safe: X509_verify_cert_error_string returns a static string for any code.
            let reason = String(cString: X509_verify_cert_error_string(Int(error)))
            let message = "X.509: \(reason) (depth \(depth))"
            switch error {
            case X509_V_ERR_CERT_HAS_EXPIRED: throw CryptoError(.expired, message)
            case X509_V_ERR_CERT_NOT_YET_VALID: throw CryptoError(.notYetValid, message)
            default: throw CryptoError(.untrustedChain, message)
            }
        }
        for (depth, oid) in markers.sorted(by: { $0.key < $1.key }) {
            guard let certificate = copenssl_verified_chain_certificate(context.pointer, Int32(depth)),
                  copenssl_x509_has_extension(certificate, oid) == 1 else {
                throw CryptoError(.untrustedChain, "X.509: the certificate at depth \(depth) lacks extension \(oid)")
            }
        }
        // A CA certificate as "leaf" (e.g. a chain of just the trusted root) must not sign tokens.
        guard X509_check_ca(leaf.pointer) == 0 else {
            throw CryptoError(.untrustedChain, "X.509: the leaf certificate is a CA")
        }
        let key = EVPKey(taking: try CryptoError.unwrap(X509_get_pubkey(leaf.pointer), "X509_get_pubkey", code: .malformed))
        return try ECVerifyingKey(key: key, keyID: nil)
    }
}
