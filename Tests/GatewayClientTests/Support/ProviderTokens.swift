@testable import CryptoCore
import Foundation
import GatewayClient

/// ID tokens as Apple and Google sign them, made with the tests' own keys, which the identity
/// executable is started with as the providers' JWKS (`IdentityServiceTrait`): an RSA 2048 key
/// (RS256, as both providers use) and a P-256 key made per run (ES256). Never real provider
/// keys. Copied from IdentityTests' ProviderTokenMinter, without its use of Identity internals.
struct ProviderTokens: Sendable {
    static let rsaKeyID = "e2e-rsa-2048"
    static let ecKeyID = "e2e-ec-p256"

    /// The one set of keys of this test process: the executable's JWKS is made from it.
    static let shared: ProviderTokens = {
        do {
            return try ProviderTokens()
        } catch {
            fatalError("the test provider keys could not be made: \(error)")
        }
    }()

    let rsa: EVPKey
    let rsaPublic: RSAVerifyingKey
    let ec: ECSigningKey

    private init() throws {
        rsa = try EVPKey.read(pem: Array(Self.rsaPrivateKeyPEM.utf8))
        rsaPublic = try RSAVerifyingKey(modulus: Base64URL.decode(Self.rsaModulus), exponent: [1, 0, 1], keyID: Self.rsaKeyID)
        ec = try ECSigningKey.generate(keyID: Self.ecKeyID)
    }

    /// The JWKS both providers are configured with: both public keys.
    func jwksJSON() throws -> String {
        String(decoding: try JWKSet(keys: [.rsa(rsaPublic), .ec(ec.verifyingKey)]).jsonBytes(), as: UTF8.self)
    }

    // MARK: Claims

    /// Claims of an Apple ID token for `subject`: audience the app's default bundle id, nonce
    /// the SHA-256 hex the app gave Apple, valid for ten minutes from now.
    static func apple(subject: String, app: String, nonce: ProviderNonce, email: String? = nil) -> JWTClaims {
        var claims: JWTClaims = [
            "iss": "https://appleid.apple.com", "aud": .string("com.rendezvous.\(app)"), "sub": .string(subject),
            "iat": .integer(now), "exp": .integer(now + 600), "nonce": .string(nonce.sha256), "nonce_supported": true,
        ]
        if let email {
            claims["email"] = .string(email)
            claims["email_verified"] = "true"
        }
        return claims
    }

    /// Claims of a Google ID token: the raw nonce as given, issuer without the scheme (Google
    /// uses both forms), valid for an hour.
    static func google(subject: String, app: String, nonce: ProviderNonce, email: String? = nil) -> JWTClaims {
        var claims: JWTClaims = [
            "iss": "accounts.google.com", "aud": .string("com.rendezvous.\(app)"),
            "azp": .string("com.rendezvous.\(app)"), "sub": .string(subject),
            "iat": .integer(now), "exp": .integer(now + 3600), "nonce": .string(nonce.raw),
        ]
        if let email {
            claims["email"] = .string(email)
            claims["email_verified"] = true
        }
        return claims
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// A fresh provider subject (Apple's and Google's are opaque strings).
    static func uniqueSubject() -> String { "sub-\(UUID().uuidString.lowercased())" }

    // MARK: Signing

    /// `claims` signed RS256 with the configured RSA key.
    func rs256(_ claims: JWTClaims) throws -> String {
        let header = JSONValue.object(["alg": "RS256", "kid": .string(Self.rsaKeyID), "typ": "JWT"]).serialized()
        let input = Base64URL.encode(header) + "." + Base64URL.encode(claims.serialized())
        return input + "." + Base64URL.encode(try rsa.signSHA256(Array(input.utf8)))
    }

    /// `claims` signed ES256 with `key` (default: the configured EC key).
    func es256(_ claims: JWTClaims, key: ECSigningKey? = nil) throws -> String {
        try JWS.sign(header: ["typ": "JWT"], payload: claims.serialized(), key: key ?? ec)
    }

    /// `claims` signed ES256 by a forger: a key of its own under the configured key's kid.
    func forged(_ claims: JWTClaims) throws -> String {
        try es256(claims, key: try ECSigningKey.generate(keyID: Self.ecKeyID))
    }

    /// The test RSA key (2048 bits, e = 65537), made with `openssl genpkey` for these tests.
    static let rsaModulus = "yauj_gvbg-FTkUHElRQK9G62tXjEPqB78hS9p7E1MwoTTNDMnGTLlpfCEgEeEf91GBPbJqpfyKvHje8iyib9g0Lvs31mmadeJ5bAK4vZe3y8znT8Pe4ch0pZTxTmSpw-fN4T1z9bhF2SwUW59zo5r63olixeADFOEupSzmaWnBdBSN6xE3eSY4UkzyQvbFV1TQtPDvu4-YOTNTpNGGOMMe6aHeyLTL0uZ-lqqYIJST6TMBVQsv6HKeKpRFTucl-NyLy4e4BnVtVHJQelWgrBeyoRwSMBtiJdZJ2y1xVS_Xi08j7_QJgs7kMVGwPyWFI3qKr0F-nHa2aJDBTKZGqFOQ"

    static let rsaPrivateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDJq6P+C9uD4VOR
        QcSVFAr0bra1eMQ+oHvyFL2nsTUzChNM0MycZMuWl8ISAR4R/3UYE9smql/Iq8eN
        7yLKJv2DQu+zfWaZp14nlsAri9l7fLzOdPw97hyHSllPFOZKnD583hPXP1uEXZLB
        Rbn3OjmvreiWLF4AMU4S6lLOZpacF0FI3rETd5JjhSTPJC9sVXVNC08O+7j5g5M1
        Ok0YY4wx7pod7ItMvS5n6WqpgglJPpMwFVCy/ocp4qlEVO5yX43IvLh7gGdW1Ucl
        B6VaCsF7KhHBIwG2Il1knbLXFVL9eLTyPv9AmCzuQxUbA/JYUjeoqvQX6cdrZokM
        FMpkaoU5AgMBAAECggEAAWxXK29M/MjFzLQgnYa3LxNq8avpAqIiTcqMrhbHj9Ul
        3rhogUAK2cS3Z2YfnrPlUSauuL6iD2n67gr+fVu6FUePJn6fjz0JopDjSUti3Qa7
        1F8p+ovoIqJJMBAvMd6ZaEsu66l0TWJVq0yBK/f6uT0qc4jbnve6G9MQg4lgzbgv
        FkHCqjNzyMi+w9zDKjCF7qQEm6YKdVAxQo3YdAn4jRwogXHw1JTF1QZlChcXFfWo
        dczjiMgWSPHTt0xViwGrHTlQ+GogFS4jEfGuyYp25OVg6gGxRIWmDhLxxFrtxJvY
        gU31YaDxwwGKBggGElJ3l/URMDsu/0DIEbHEgKbwQQKBgQDkDhWhgrAD9kUOuCqj
        NNChkbvskgnpOr4/VJZnuowiQRvD3tQplmqobzKTvaZGC6vQu3/iBh8sIq49JKlF
        wHL6mfzAdNmeuutJ+Zs6zeVGmlgNXmgGnUovW0KwCvAEp+lMRCqqoqtLcPU3OdXq
        dozedplVAkOI5smeYOwBHWD2EQKBgQDiYeSAx8oOKFJTMYc7bjZwAi/5OnDIoVnn
        zlDdZ5Hl4gofznwjbggfrvisCErr5W3+z7hlK9Yvj06gFa31/5NkeGfaSQUowFME
        mOEUWjDc7WZ2v/A+Ou6N8qlrzJdC92ZiyPHo6QXZfbDt5HmHRn0pW8Un6f4gYvif
        IJg1z4LUqQKBgFzJ4kExtD4YcGaZxjdbYNusOQL7NG8hyJBp8TxJKYUyaoKaYkZ9
        fe4EOFbmXgW37/NgppqnFP3XKn+UMA9CS0Xta2o+4OB1exBBL8iQR44fdF4UIE04
        qBt2jT6lZJzwWLsALT/6KanrTspmjMP18kD9jkuJPUMxa602EDAv7OiRAoGAA/gN
        ZoiaLUddsiGzKkKTZ8FSD/+LTKkvh1XhqxAOycX9wXMAUCq0r8GEkJeQoLQkCoyf
        wf5Twf+0NDBNHXv+nItT3sra8Uz156W6hH3UT3tGCZzx3FVyK0Du4XnzyPPHcsHt
        I9U6CgcfG/yeeNWuihQWz81VbEHv8/JBWOgrdgkCgYEAn6eMMDB+8uQpFKdXKDno
        vcg2SDR9lyZM7HKXkfB2ErWkX4bS3mklLEC+Ogqr+3Ahm+H06SVRK9bcpS5O+gOh
        mtaQ6ehzrfMoGvoq2FviQllOPbrY/enu/SNprL+6ZA4k+jDOQGxPj+U8JOMZ8Sve
        re6nUXd47HsIdhutynyqkoo=
        -----END PRIVATE KEY-----
        """
}
