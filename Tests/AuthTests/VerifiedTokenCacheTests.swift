import Auth
import Contracts
import CryptoCore
import Foundation
import Synchronization
import Testing

/// The verifier remembers tokens it verified, but never accepts from memory what it would
/// refuse in full: an expired token, a token whose key was withdrawn, a changed byte.
@Suite struct VerifiedTokenCacheTests {
    /// A key set that can change, counting fetches.
    final class Keys: SigningKeySource {
        let set: Mutex<JWKSet>
        let fetches = Atomic(0)

        init(_ keys: [ECSigningKey]) throws {
            set = Mutex(try Self.jwks(keys))
        }

        static func jwks(_ keys: [ECSigningKey]) throws -> JWKSet {
            try JWKSet(Identity.SigningKeySet(keys: keys.map { Identity.SigningKey($0.verifyingKey) }))
        }

        func fetchKeys() async throws -> (keys: JWKSet, maxAge: Duration) {
            fetches.add(1, ordering: .relaxed)
            return (set.withLock { $0 }, .milliseconds(1))
        }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(_ key: ECSigningKey, account: String = UUID().uuidString.lowercased(),
                      expiresIn seconds: Int64 = 900) throws -> String {
        let issued = Int64(now.timeIntervalSince1970)
        let account = AuthenticatedAccount(accountID: account, app: "swivo", role: "member", tier: "free",
                                           membershipStatus: "active", sessionID: UUID().uuidString.lowercased())
        return try AccessTokenClaims(account: account, issuedAt: issued, expiresAt: issued + seconds).sign(with: key)
    }

    static func verifier(_ keys: Keys, capacity: Int = 100) -> AccessTokenVerifier {
        var configuration = AccessTokenVerifier.Configuration(apps: ["swivo"])
        configuration.verifiedTokenCapacity = capacity
        configuration.minimumRefreshInterval = .zero
        return AccessTokenVerifier(configuration: configuration, source: keys)
    }

    static func failure(_ verifier: AccessTokenVerifier, _ token: String, at date: Date) async -> AuthFailure? {
        do {
            _ = try await verifier.verify(token, now: date)
            return nil
        } catch {
            return error
        }
    }

    @Test func aVerifiedToken_isRemembered_andAnswersTheSameAccount() async throws {
        let key = try ECSigningKey.generate(keyID: "k1")
        let verifier = Self.verifier(try Keys([key]))
        let token = try Self.token(key, account: "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b")
        let first = try await verifier.verify(token, now: Self.now)
        #expect(verifier.verifiedTokenCount == 1)
        let second = try await verifier.verify(token, now: Self.now.addingTimeInterval(60))
        #expect(first == second && second.accountID == "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b")
    }

    @Test func aRememberedToken_isRefusedOnceExpired() async throws {
        let key = try ECSigningKey.generate(keyID: "k1")
        let verifier = Self.verifier(try Keys([key]))
        let token = try Self.token(key, expiresIn: 60)
        _ = try await verifier.verify(token, now: Self.now)
        // exp + the 30 s leeway is the last second the verifier accepts, cached or not.
        _ = try await verifier.verify(token, now: Self.now.addingTimeInterval(89))
        let failure = await Self.failure(verifier, token, at: Self.now.addingTimeInterval(91))
        #expect(failure?.reason == .expired)
    }

    @Test func aRememberedToken_isRefused_onceItsKeyLeavesThePublishedSet() async throws {
        let old = try ECSigningKey.generate(keyID: "old")
        let new = try ECSigningKey.generate(keyID: "new")
        let keys = try Keys([old, new])
        let verifier = Self.verifier(keys)
        let oldToken = try Self.token(old)
        let newToken = try Self.token(new)
        _ = try await verifier.verify(oldToken, now: Self.now)
        _ = try await verifier.verify(newToken, now: Self.now)
        #expect(verifier.verifiedTokenCount == 2)
        keys.set.withLock { $0 = try! Keys.jwks([new]) }  // Valid: keys generated above.
        try await Task.sleep(for: .milliseconds(5))  // the set's max age (1 ms) passes
        let failure = await Self.failure(verifier, oldToken, at: Self.now)
        #expect(failure?.reason == .unknownKey)
        #expect(try await verifier.verify(newToken, now: Self.now).app == "swivo")
        #expect(verifier.verifiedTokenCount == 1)
    }

    @Test func aTamperedToken_isNeverAcceptedFromMemory() async throws {
        let key = try ECSigningKey.generate(keyID: "k1")
        let verifier = Self.verifier(try Keys([key]))
        let token = try Self.token(key)
        _ = try await verifier.verify(token, now: Self.now)
        var bytes = Array(token.utf8)
        // Change one character of the signature to another valid base64url character.
        let index = bytes.count - 5
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let tampered = String(decoding: bytes, as: UTF8.self)
        #expect(await Self.failure(verifier, tampered, at: Self.now) != nil)
        #expect(verifier.verifiedTokenCount == 1)
    }

    @Test func theMemory_staysBounded_underManyDistinctTokens() async throws {
        let key = try ECSigningKey.generate(keyID: "k1")
        let verifier = Self.verifier(try Keys([key]), capacity: 50)
        var tokens: [String] = []
        for _ in 0..<300 {
            let token = try Self.token(key)
            tokens.append(token)
            _ = try await verifier.verify(token, now: Self.now)
            #expect(verifier.verifiedTokenCount <= 50)
        }
        // Evicted tokens are simply verified again.
        for token in tokens.prefix(20) {
            _ = try await verifier.verify(token, now: Self.now)
        }
        #expect(verifier.verifiedTokenCount <= 50)
    }
}
