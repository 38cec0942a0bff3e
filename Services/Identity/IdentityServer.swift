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
    /// Checks service credentials; guards the internal methods, which `interceptor` lets pass.
    let serviceInterceptor: ServiceAuthInterceptor
    let ring: KeyRing
    let keyStore: SigningKeyStore

    /// Both interceptors, to install in this order.
    var interceptors: [any ServerInterceptor] { [serviceInterceptor, interceptor] }

    /// Loads (or creates) the signing keys; `pool` must already be migrated. `extraInternalMethods`
    /// are methods of `extraServices` that only services may call (e.g. WatchEvents). Tokens of
    /// the sessions and accounts in `revocations` are refused; sign-out adds to it at once.
    static func make(pool: PostgresPool, settings: IdentitySettings,
                     extraServices: [any RPCService] = [], extraPublicMethods: Set<String> = [],
                     extraInternalMethods: [String: ServiceAccess] = [:],
                     revocations: RevocationList? = nil) async throws -> IdentityServer {
        let ring = KeyRing()
        let keyStore = SigningKeyStore(pool: pool, keyEncryptionKey: settings.keyEncryptionKey,
                                       signingPeriod: settings.keySigningPeriod, publishAhead: settings.keyPublishAhead,
                                       publishAfter: settings.accessTokenLifetime + Int64(settings.keySetMaxAge) + 300)
        try await keyStore.refresh(into: ring)
        let verifier = AccessTokenVerifier(configuration: .init(apps: settings.apps.appIDs),
                                           source: KeyRingSource(ring: ring, maxAge: .seconds(60)))
        var identity = IdentityService(pool: pool, settings: settings, ring: ring, outbox: try Outbox(schema: "identity"),
                                       revocationList: revocations, accountReads: BatchedReads(pool: pool))
        let signer = identity
        identity.anonymousSignIns = GroupCommitQueue(maxBatch: settings.writeBatch, maxRunning: settings.writeRunners) {
            try await signer.signInAnonymously($0)
        }
        let devices = DevicesService(pool: pool, settings: settings.devices)
        let devicesInternal = DevicesInternalService(pool: pool, settings: settings.devices, apps: settings.apps)
        let contactsInternal = ContactsInternalService(pool: pool)
        let profiles = try ProfilesService.services(pool: pool, settings: settings, revocations: revocations)
        let membership = MembershipService(pool: pool, settings: settings, outbox: try Outbox(schema: "identity"),
                                           revocationList: revocations)
        let internalMethods = DevicesInternalService.internalMethods(callers: settings.devices.pushTokenCallers)
            .merging(ContactsInternalService.internalMethods(callers: settings.contactCallers)) { _, contacts in contacts }
            .merging(extraInternalMethods) { _, extra in extra }
        let serviceInterceptor = ServiceAuthInterceptor(credentials: settings.serviceCredentials, methods: internalMethods)
        return IdentityServer(services: [identity, devices, devicesInternal, contactsInternal, membership] + profiles + extraServices,
                              interceptor: AuthInterceptor(verifier: verifier,
                                                           publicMethods: IdentityService.publicMethods
                                                               .union(MembershipService.publicMethods).union(extraPublicMethods)
                                                               .union(serviceInterceptor.guardedMethods),
                                                           revocations: revocations,
                                                           openBeforeAdmission: Admission.openMethods),
                              serviceInterceptor: serviceInterceptor,
                              ring: ring, keyStore: keyStore)
    }
}
