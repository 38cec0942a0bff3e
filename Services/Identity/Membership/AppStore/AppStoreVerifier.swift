import CryptoCore
import Foundation

/// Checks that a signed transaction comes from the App Store: an ES256 JWS whose `x5c` chain
/// leads to one of the configured roots (Apple Root CA - G3 in production), whose leaf and
/// intermediate carry Apple's App Store markers, and whose signature verifies with the leaf.
struct AppStoreVerifier: Sendable {
    /// The trusted roots, PEM.
    let rootsPEM: [UInt8]

    /// Verifies `token` now and decodes its payload. MALFORMED_TRANSACTION for anything that is
    /// not a well-formed ES256 JWS with an x5c chain; UNTRUSTED_TRANSACTION for a chain that
    /// does not lead to the roots (or a certificate outside its validity) and for a signature
    /// that does not verify, as with a tampered payload.
    func verify(_ token: String, now: Date = Date()) throws(MembershipError) -> AppStoreTransaction {
        let verified: VerifiedJWS
        do {
            verified = try JWS.verify(token: token, x5cRootsPEM: rootsPEM, at: now, markers: X509ChainVerifier.appStoreMarkers)
        } catch let error as CryptoError where error.code == .malformed || error.code == .unsupportedAlgorithm {
            throw .malformedTransaction
        } catch {
            throw .untrustedTransaction
        }
        return try AppStoreTransaction(payload: verified.payload)
    }
}
