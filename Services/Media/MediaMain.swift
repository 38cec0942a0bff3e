#if canImport(Glibc)
import Glibc
#endif
import Auth
import Contracts
import CryptoCore
import RPC
import Runtime

/// `media`: uploads, blobs and signed downloads, on 127.0.0.1:7105 by default (RV_MEDIA_PORT),
/// schema `media` as role rv_media (RV_PG_URL_MEDIA). Blobs under RV_MEDIA_STORAGE_DIR
/// (default .data/media), or in an S3-compatible bucket with RV_MEDIA_STORAGE=s3 (`S3Settings`);
/// download URLs signed with RV_MEDIA_URL_SECRET and served by plain
/// HTTP GET on the gRPC port (HTTP/2, h2c) and the admin port (HTTP/1.1). Follows identity
/// (RV_IDENTITY_ADDRESS, default 127.0.0.1:7101) for signing keys, revocations and
/// AccountDeleted; its own credential (RV_SERVICE_NAME, RV_SERVICE_SECRET) must be one identity
/// accepts. Photos are served as renditions libvips makes once per content on
/// RV_MEDIA_RENDITION_THREADS threads of their own (`RenditionJob`). Settings: `MediaSettings`.
@main
struct MediaMain {
    static func main() async {
        await ServiceMain.run(name: "media", defaultPort: 7105, onListening: { addresses in
            print("media listening on \(addresses.host):\(addresses.port)")
            fflush(nil)
        }) { context in
            let settings = try MediaSettings.load(from: context.environment)
            let credential = try context.environment.serviceCredential()
            if credential == nil {
                context.logger.warning("\(EnvironmentReader.serviceNameVariable) is not set: identity's events cannot be followed")
            }
            let secret: [UInt8]
            if let configured = settings.urlSecret {
                secret = configured
            } else {
                context.logger.warning("\(MediaSettings.urlSecretVariable) is not set: download URLs last only as long as this process")
                secret = SecureRandom.bytes(32)
            }
            let accepted = try context.environment.acceptedServiceCredentials()
            let pool = try await context.makePostgresPool(schema: "media", migrations: try MediaMigrations.all())
            let io = BlockingWorkPool(threads: 4, name: "rv-media-io")
            context.onShutdown("storage threads") { io.stop() }
            let storage = try makeStorage(settings, io: io, context: context)
            let outbox = try Outbox(schema: "media")
            let notifier = try await context.makeOutboxNotifier(pool: pool, channel: outbox.channel)
            let identity = RPCClient(host: settings.identityHost, port: settings.identityPort)
            context.onShutdown("identity client") { identity.close() }

            try VipsLibrary.start()
            let renderThreads = BlockingWorkPool(threads: settings.renditionThreads, name: "rv-media-render")
            context.onShutdown("render threads") { renderThreads.stop() }
            let renditions = RenditionJob(pool: pool, storage: storage, threads: renderThreads, concurrency: settings.renditionThreads,
                                          interval: settings.renditionInterval, logger: context.logger)
            let server = MediaServer(pool: pool, settings: settings, identity: identity, storage: storage,
                                     signer: URLSigner(secret: secret), renditions: renditions, outbox: outbox, notifier: notifier,
                                     accepted: accepted, revocations: context.revocations)
            context.followRevocations(identity: identity, credential: credential)
            let purge = try EventConsumer(source: "identity", schema: "media", pool: pool, client: identity,
                                          types: AccountPurge.eventTypes + AccountProjection.eventTypes, credential: credential,
                                          logger: context.logger) { event, connection in
                try await AccountProjection.apply(event, on: connection)
                try await server.purge.apply(event, on: connection)
            }
            context.follow(purge)
            let reveal = RevealJob(pool: pool, outbox: outbox, interval: settings.revealInterval, logger: context.logger)
            context.addBackgroundJob("momento reveal") { await reveal.run() }
            let sweeper = UploadSweeper(pool: pool, storage: storage, interval: settings.sweepInterval, logger: context.logger)
            context.addBackgroundJob("upload sweep") { await sweeper.run() }
            context.addBackgroundJob("photo renditions") { await renditions.run() }
            context.setHTTPHandler(server.downloads)
            for interceptor in server.interceptors { context.addInterceptor(interceptor) }
            return server.services
        }
    }

    /// The local backend, or the S3 one (with a readiness check on its bucket) when configured.
    private static func makeStorage(_ settings: MediaSettings, io: BlockingWorkPool, context: ServiceContext) throws -> any BlobStorage {
        guard let s3 = settings.s3 else { return try LocalBlobStorage(root: settings.storageDirectory, io: io) }
        // Requests to the store block their thread for as long as the store takes: threads of
        // their own, so a slow store never holds up the staging folder's file I/O.
        let http = BlockingWorkPool(threads: 8, name: "rv-media-s3")
        context.onShutdown("s3 threads") { http.stop() }
        let storage = try S3BlobStorage(settings: s3, stagingRoot: settings.storageDirectory, io: io, http: http)
        context.addReadinessCheck("storage") { try await storage.checkBucket() }
        context.logger.info("blobs in S3 bucket \(s3.bucket) at \(s3.endpoint.absoluteString)")
        return storage
    }
}
