import CryptoCore
import Foundation

/// The fields of a StoreKit 2 signed transaction's payload (Apple's JWSTransactionDecodedPayload)
/// that decide a tier grant. Dates arrive as milliseconds since 1970.
struct AppStoreTransaction: Sendable, Equatable {
    var transactionID: String
    var originalTransactionID: String
    var bundleID: String
    var productID: String
    /// "Production", "Sandbox" or "Xcode".
    var environment: String
    var signedAt: Date
    var purchasedAt: Date?
    /// When the subscription period ends; only auto-renewable subscriptions grant tiers.
    var expiresAt: Date
    /// Set when Apple refunded or revoked the purchase (or it was upgraded away).
    var revokedAt: Date?
    /// The account id the app passed to StoreKit at purchase, if it passed one.
    var appAccountToken: UUID?

    /// Longest identifier accepted (Apple's ids are decimal strings of ~16 digits).
    static let maximumIdentifierLength = 128

    /// Decodes the payload; MALFORMED_TRANSACTION when a required field is missing or wrong.
    init(payload: [UInt8]) throws(MembershipError) {
        guard let claims = try? JWTClaims(payload: payload) else { throw .malformedTransaction }
        transactionID = try Self.identifier(claims, "transactionId")
        originalTransactionID = try Self.identifier(claims, "originalTransactionId")
        bundleID = try Self.identifier(claims, "bundleId")
        productID = try Self.identifier(claims, "productId")
        environment = try Self.identifier(claims, "environment")
        signedAt = try Self.date(claims, "signedDate")
        expiresAt = try Self.date(claims, "expiresDate")
        purchasedAt = try Self.optionalDate(claims, "purchaseDate")
        revokedAt = try Self.optionalDate(claims, "revocationDate")
        if let token = claims["appAccountToken"] {
            guard let text = token.stringValue, let id = UUID(uuidString: text) else { throw .malformedTransaction }
            appAccountToken = id
        }
    }

    private static func identifier(_ claims: JWTClaims, _ name: String) throws(MembershipError) -> String {
        guard let value = claims.string(name), !value.isEmpty, value.utf8.count <= maximumIdentifierLength else {
            throw .malformedTransaction
        }
        return value
    }

    private static func date(_ claims: JWTClaims, _ name: String) throws(MembershipError) -> Date {
        guard let date = try optionalDate(claims, name) else { throw .malformedTransaction }
        return date
    }

    /// Milliseconds since 1970 between 1970 and 9999; nil when absent.
    private static func optionalDate(_ claims: JWTClaims, _ name: String) throws(MembershipError) -> Date? {
        guard let value = claims[name] else { return nil }
        guard let milliseconds = value.int64Value, (0..<253_402_300_800_000).contains(milliseconds) else {
            throw .malformedTransaction
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
