import Auth
import Contracts
import Postgres
import RPC
import Runtime

/// Everything the media executable serves, assembled once: used by `MediaMain` and by tests
/// that run the service in-process.
struct MediaServer: Sendable {
    let services: [any RPCService]
    /// Service credentials on WatchEvents first, then access tokens on everything else.
    let interceptors: [any ServerInterceptor]
    /// Signed downloads over plain HTTP.
    let downloads: DownloadHandler
    /// Applies identity's AccountDeleted.
    let purge: AccountPurge

    /// What an account its app has not admitted (ÉLITE: waitlisted, rejected) may call: its
    /// uploads and changes to its profile photos, so the committee can review its profile. The
    /// reads that could show another member's photos are refused (NOT_ADMITTED).
    static let openBeforeAdmission: Set<String> = Set(
        ["CreateUpload", "Upload", "GetUpload"].map { "/\(MediaClient.serviceName)/\($0)" }
            + ["AddPhoto", "RemovePhoto", "ReorderPhotos"].map { "/\(ProfilePhotosClient.serviceName)/\($0)" })

    init(pool: PostgresPool, settings: MediaSettings, identity: RPCClient, storage: any BlobStorage, signer: URLSigner,
         renditions: RenditionJob, outbox: Outbox, notifier: OutboxNotifier, accepted: ServiceCredentials,
         revocations: RevocationList?) {
        let media = MediaService(pool: pool, storage: storage, signer: signer, settings: settings)
        let events = EventStreamService(outbox: outbox, pool: pool, notifier: notifier)
        let serviceInterceptor = ServiceAuthInterceptor(credentials: accepted, methods: EventStreamService.internalMethods)
        let verifier = AccessTokenVerifier(configuration: .init(apps: settings.apps),
                                           source: IdentitySigningKeySource(client: IdentityClient(client: identity)))
        let auth = AuthInterceptor(verifier: verifier,
                                   publicMethods: serviceInterceptor.guardedMethods.union(MomentoEventsService.publicMethods),
                                   revocations: revocations, openBeforeAdmission: Self.openBeforeAdmission)
        let photos = ProfilePhotosService(pool: pool, signer: signer, settings: settings, reads: BatchedReads(pool: pool))
        let momento = MomentoEventsService(pool: pool, store: EventStore(outbox: outbox), signer: signer, settings: settings,
                                          events: events)
        services = [media, photos, momento, events]
        interceptors = [serviceInterceptor, auth]
        downloads = DownloadHandler(pool: pool, storage: storage, signer: signer, renditions: renditions)
        purge = AccountPurge(storage: storage)
    }
}
