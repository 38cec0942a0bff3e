import Contracts
import Foundation
package import RPC

/// Requires a valid `authorization: Bearer <access token>` on every call except public
/// methods and health checks, and puts the caller into `context.account` for handlers.
///
/// A token that verifies is then checked against `revocations`: one of a revoked session is
/// refused with TOKEN_REVOKED, one issued before its account's claims changed with TOKEN_STALE.
/// Then the app's admission: an account its app does not admit yet (the token's `adm` claim,
/// identity's decision from the app's policy) is refused PERMISSION_DENIED NOT_ADMITTED on
/// every method but `openBeforeAdmission` and `personalDataExports`.
package struct AuthInterceptor: ServerInterceptor {
    package let verifier: AccessTokenVerifier
    /// Sessions and accounts whose tokens are refused before they expire; nil checks none.
    package let revocations: RevocationList?
    /// Full paths (`/package.Service/Method`) callable without a token.
    package let publicMethods: Set<String>
    /// Full paths an account its app has not admitted may call: what it needs to get admitted
    /// (its account, own profile, referral redemption…). Empty: such an account may call nothing.
    package let openBeforeAdmission: Set<String>
    /// Path prefixes callable without a token: health checks.
    package static let publicPrefixes = ["/grpc.health.v1.Health/"]
    /// Every service's `ExportMyData`: a member's copy of their own data, whatever their
    /// membership status (rendezvous/privacy/v1/privacy.proto).
    package static let personalDataExports: Set<String> = Set(
        [IdentityClient.serviceName, DiscoveryClient.serviceName, MessagingClient.serviceName, CastingClient.serviceName,
         MediaClient.serviceName].map { "/\($0)/ExportMyData" })

    package init(verifier: AccessTokenVerifier, publicMethods: Set<String>, revocations: RevocationList? = nil,
                 openBeforeAdmission: Set<String> = []) {
        self.verifier = verifier
        self.publicMethods = publicMethods
        self.revocations = revocations
        self.openBeforeAdmission = openBeforeAdmission
    }

    nonisolated(nonsending) package func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws {
        if publicMethods.contains(context.path) || Self.publicPrefixes.contains(where: context.path.hasPrefix) {
            return try await next()
        }
        guard let header = context.requestMetadata[string: "authorization"] else { throw AuthFailure(.missingToken) }
        guard let token = Self.bearerToken(header) else { throw AuthFailure(.malformedToken) }
        let account = try await verifier.verify(token)
        switch revocations?.check(account) ?? .valid {
        case .valid: break
        case .revoked: throw AuthFailure(.revoked)
        case .stale: throw AuthFailure(.stale)
        }
        guard account.admitted || openBeforeAdmission.contains(context.path) || Self.personalDataExports.contains(context.path) else {
            throw RPCError(Platform.ErrorReason.notAdmitted,
                           message: "not admitted yet: this needs a member the app has admitted")
        }
        context.account = account
        try await next()
    }

    /// The token of an RFC 6750 `Bearer` credential (scheme case-insensitive).
    static func bearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        // Trimmed on the UTF-8 view: Foundation's trimmingCharacters bridges the whole token
        // through NSString and UTF-16, which was 16% of an authenticated read's server CPU.
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let bytes = parts[1].utf8
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return nil
        }
        return String(parts[1][first...last])
    }
}
