import Foundation
import Testing
@testable import CryptoCore

@Suite struct JWTClaimsValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let validator = JWTClaimsValidator(
        issuers: ["https://appleid.apple.com"], audiences: ["app.elite", "app.elite.web"], leewaySeconds: 60)
    static let good: JWTClaims = [
        "iss": "https://appleid.apple.com", "aud": "app.elite", "exp": 1_700_000_600, "nbf": 1_699_999_000,
        "nonce": "n-0S6_WzA2Mj",
    ]

    static func with(_ name: String, _ value: JSONValue?) -> JWTClaims {
        var claims = good
        claims[name] = value
        return claims
    }

    @Test func validate_good_passes() throws {
        try Self.validator.validate(Self.good, now: Self.now, nonce: "n-0S6_WzA2Mj")
        try Self.validator.validate(Self.with("aud", ["other", "app.elite.web"]), now: Self.now)
        try Self.validator.validate(Self.with("nbf", nil), now: Self.now)
        // Within leeway on both sides; fractional NumericDate.
        try Self.validator.validate(Self.with("exp", 1_699_999_941), now: Self.now)
        try Self.validator.validate(Self.with("nbf", 1_700_000_060), now: Self.now)
        try Self.validator.validate(Self.with("exp", .number(1_700_000_600.5)), now: Self.now)
    }

    static let failures: [(JWTClaims, String?, CryptoError.Code)] = [
        (with("iss", "https://evil.example"), nil, .wrongIssuer),
        (with("iss", nil), nil, .wrongIssuer),
        (with("iss", ["https://appleid.apple.com"]), nil, .wrongIssuer),
        (with("aud", "app.other"), nil, .wrongAudience),
        (with("aud", []), nil, .wrongAudience),
        (with("aud", nil), nil, .malformed),
        (with("aud", ["app.elite", 3]), nil, .malformed),
        (with("exp", 1_699_999_940), nil, .expired),
        (with("exp", nil), nil, .malformed),
        (with("exp", "1700000600"), nil, .malformed),
        (with("nbf", 1_700_000_061), nil, .notYetValid),
        (with("nbf", "soon"), nil, .malformed),
        (good, "another-nonce", .wrongNonce),
        (with("nonce", nil), "n-0S6_WzA2Mj", .wrongNonce),
        (with("nonce", 5), "5", .wrongNonce),
    ]

    @Test(arguments: failures)
    func validate_failure_hasDistinctCode(_ claims: JWTClaims, _ nonce: String?, _ code: CryptoError.Code) {
        #expect { try Self.validator.validate(claims, now: Self.now, nonce: nonce) } throws: { error in
            guard let error = error as? CryptoError else { return false }
            return error.code == code && !error.description.contains("evil") && !error.description.contains("n-0S6")
        }
    }
}
