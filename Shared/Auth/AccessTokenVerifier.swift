import CryptoCore
package import Foundation
import Synchronization

/// Verifies Identity's access tokens locally: ES256 signature with a cached key set, then
/// issuer, app (audience), expiry and not-before.
///
/// Keys are fetched on first use and again once their max age passes; a token whose `kid` the
/// cache lacks triggers a refetch, at most once per `minimumRefreshInterval`, so a flood of
/// forged `kid`s cannot turn into a flood of fetches.
///
/// A token verified once is remembered (`VerifiedTokenCache`, `verifiedTokenCapacity` entries)
/// until its `exp` or until its key leaves the published set, so a client's later calls with
/// the same token cost a SHA-256 and a lookup instead of an ES256 verification.
package final class AccessTokenVerifier: Sendable {
    package struct Configuration: Sendable {
        /// Apps whose tokens this service accepts; nil accepts a token of any app Identity signs
        /// for, for a service whose handlers answer an app they do not serve themselves (with
        /// PERMISSION_DENIED and their own reason, where WRONG_APP would be UNAUTHENTICATED and
        /// make the client refresh its token for nothing).
        package var apps: Set<String>?
        /// Clock skew allowed on `exp` and `nbf`, in seconds.
        package var leewaySeconds: Int64 = 30
        /// Least time between two fetches caused by an unknown `kid`.
        package var minimumRefreshInterval: Duration = .seconds(10)
        /// Max age used when the source gives none.
        package var defaultMaxAge: Duration = .seconds(300)
        /// Verified tokens remembered at most (0: none). 100,000 entries hold about 30 MB.
        package var verifiedTokenCapacity = 100_000

        package init(apps: Set<String>?) { self.apps = apps }
    }

    private struct Cache {
        var keys: JWKSet?
        var expiresAt: ContinuousClock.Instant = .now
        var lastFetch: ContinuousClock.Instant?
    }

    package let configuration: Configuration
    private let source: any SigningKeySource
    private let cache = Mutex(Cache())
    private let verifiedTokens: VerifiedTokenCache

    package init(configuration: Configuration, source: any SigningKeySource) {
        self.configuration = configuration
        self.source = source
        verifiedTokens = VerifiedTokenCache(capacity: configuration.verifiedTokenCapacity)
    }

    /// Tokens remembered as verified now (for tests and metrics).
    package var verifiedTokenCount: Int { verifiedTokens.count }

    /// The account a valid token names; throws `AuthFailure` otherwise.
    package func verify(_ token: String, now: Date = Date()) async throws(AuthFailure) -> AuthenticatedAccount {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let key = VerifiedTokenCache.key(token)
        if verifiedTokens.account(for: key, now: seconds) != nil {
            // The key set must be current: refreshing it drops the tokens of a removed key.
            if !keysAreFresh { _ = try? await currentKeys() }
            if let account = verifiedTokens.account(for: key, now: seconds) { return account }
        }
        let (account, expiresAt, keyID) = try await verifyInFull(token, now: now)
        if let keyID {
            verifiedTokens.insert(.init(account: account, usableUntil: expiresAt + configuration.leewaySeconds, keyID: keyID),
                                  for: key, now: seconds)
        }
        return account
    }

    /// Returns once a key set is at hand, fresh or not, fetching one when there is none; throws
    /// `keysUnavailable` while none can be had. A service that verifies tokens is ready only
    /// then: without keys, every call that needs a token fails. Once it has some, identity being
    /// away does not matter here (tokens verify with the last set until it returns).
    package func ensureKeys() async throws {
        if cache.withLock({ $0.keys != nil }) { return }
        _ = try await currentKeys()
    }

    private var keysAreFresh: Bool {
        cache.withLock { $0.keys != nil && $0.expiresAt > .now }
    }

    /// Signature, header and claims; returns the account, `exp` and the verifying key's id.
    private func verifyInFull(_ token: String, now: Date) async throws(AuthFailure)
        -> (AuthenticatedAccount, expiresAt: Int64, keyID: String?) {
        let verified: VerifiedJWS
        do {
            verified = try await verifySignature(token)
        } catch let failure as AuthFailure {
            throw failure
        } catch let error as CryptoError {
            throw AuthFailure(error)
        } catch {
            throw AuthFailure(.malformedToken)
        }
        guard verified.header["typ"]?.stringValue == AccessTokenClaims.type else { throw AuthFailure(.malformedToken) }
        let claims: AccessTokenClaims
        let audience: [String]?
        let expiresAt: Int64
        do {
            let jwt = try verified.claims()
            // Any app: the audience still has to be there, and to name the app claim (below).
            let audiences = configuration.apps ?? Set(jwt.strings("aud") ?? [])
            try JWTClaimsValidator(issuers: [AccessTokenClaims.issuer], audiences: audiences,
                                   leewaySeconds: configuration.leewaySeconds).validate(jwt, now: now)
            guard let parsed = AccessTokenClaims(jwt) else { throw AuthFailure(.malformedToken) }
            claims = parsed
            audience = jwt.strings("aud")
            expiresAt = parsed.expiresAt
        } catch let failure as AuthFailure {
            throw failure
        } catch let error as CryptoError {
            throw AuthFailure(error)
        } catch {
            throw AuthFailure(.malformedToken)
        }
        // The audience passed; the app claim must name the same app.
        guard configuration.apps?.contains(claims.account.app) ?? true,
              audience == [claims.account.app] else {
            throw AuthFailure(.wrongApp)
        }
        return (claims.account, expiresAt, verified.keyID)
    }

    private func verifySignature(_ token: String) async throws -> VerifiedJWS {
        let keys = try await currentKeys()
        do {
            return try JWS.verify(token: token, keys: keys, allowedAlgorithms: [.es256])
        } catch let error as CryptoError where error.code == .unknownKeyID {
            guard let refreshed = try await refreshForUnknownKey() else { throw AuthFailure(.unknownKey) }
            return try JWS.verify(token: token, keys: refreshed, allowedAlgorithms: [.es256])
        }
    }

    /// The cached keys while fresh, else fetched ones (the stale set if the fetch fails).
    private func currentKeys() async throws -> JWKSet {
        let (cached, fresh) = cache.withLock { ($0.keys, $0.expiresAt > .now) }
        if let cached, fresh { return cached }
        do {
            return try await fetch()
        } catch {
            if let cached { return cached }
            throw AuthFailure(.keysUnavailable)
        }
    }

    /// Refetches unless another fetch happened within the minimum interval; nil when skipped.
    private func refreshForUnknownKey() async throws -> JWKSet? {
        let allowed = cache.withLock { cache in
            guard let last = cache.lastFetch else { return true }
            return last.duration(to: .now) >= configuration.minimumRefreshInterval
        }
        guard allowed else { return nil }
        do {
            return try await fetch()
        } catch {
            throw AuthFailure(.keysUnavailable)
        }
    }

    private func fetch() async throws -> JWKSet {
        cache.withLock { $0.lastFetch = .now }
        let (keys, maxAge) = try await source.fetchKeys()
        let lifetime = maxAge > .zero ? maxAge : configuration.defaultMaxAge
        cache.withLock { cache in
            cache.keys = keys
            cache.expiresAt = .now + lifetime
        }
        verifiedTokens.retainKeys(Set(keys.keys.map(\.keyID)))
        return keys
    }
}
