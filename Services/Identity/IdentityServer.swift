import Auth
import Foundation
import Postgres
import RPC
import Runtime

/// Everything the identity executable serves, assembled once: used by `IdentityMain` and by
/// tests that run the service in-process.
struct IdentityServer: Sendable {
    let services: [any RPCService]
    /// Verifies access tokens with the ring's keys; guards the authenticated methods.
    let interceptor: AuthInterceptor
    let ring: KeyRing
    let keyStore: SigningKeyStore

    /// Loads (or creates) the signing keys; `pool` must already be migrated.
    static func make(pool: PostgresPool, settings: IdentitySettings,
                     extraServices: [any RPCService] = [], extraPublicMethods: Set<String> = []) async throws -> IdentityServer {
        let ring = KeyRing()
        let keyStore = SigningKeyStore(pool: pool, keyEncryptionKey: settings.keyEncryptionKey,
                                       signingPeriod: settings.keySigningPeriod, publishAhead: settings.keyPublishAhead,
                                       publishAfter: settings.accessTokenLifetime + Int64(settings.keySetMaxAge) + 300)
        try await keyStore.refresh(into: ring)
        let verifier = AccessTokenVerifier(configuration: .init(apps: settings.apps.appIDs),
                                           source: KeyRingSource(ring: ring, maxAge: .seconds(60)))
        let identity = IdentityService(pool: pool, settings: settings, ring: ring, outbox: try Outbox(schema: "identity"))
        let profiles = try ProfilesService.services(pool: pool, settings: settings)
        return IdentityServer(services: [identity] + profiles + extraServices,
                              interceptor: AuthInterceptor(verifier: verifier,
                                                           publicMethods: IdentityService.publicMethods.union(extraPublicMethods)),
                              ring: ring, keyStore: keyStore)
    }
}
