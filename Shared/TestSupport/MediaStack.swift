#if canImport(Glibc)
import Glibc
#endif
package import Foundation
import Synchronization

/// The real `identity` and `media` executables on the local Postgres, wired as `make run` wires
/// them (media follows identity's events with a credential identity accepts). Every stack of one
/// test process shares one blob folder, as replicas of one deployment share their storage: the
/// stacks share one database, so any of them may apply an AccountDeleted or sweep an upload that
/// another's test made.
package final class MediaStack: Sendable {
    package static let mediaSecret = "media-tests-media-secret-0123456789abcdef"
    package static let urlSecret = "media-tests-url-secret-0123456789abcdefghij"

    /// The blob folder of this test process's stacks, and how many stacks use it now.
    private static let sharedStorage = NSTemporaryDirectory() + "rv-media-tests-\(getpid())"
    private static let running = Mutex(0)

    package let identity: EndToEndServiceProcess
    package let media: EndToEndServiceProcess
    /// Where this media keeps its blobs (removed when the process's last stack stops).
    package let storageDirectory: String
    /// Media's HTTP/1.1 admin port (metrics, health and signed downloads).
    package let mediaAdminPort: Int

    /// Routes `/rendezvous.identity.`, `/rendezvous.media.` and the signed downloads, as compose's edge does.
    package let edge: NginxEdge?

    private init(identity: EndToEndServiceProcess, media: EndToEndServiceProcess, storageDirectory: String, mediaAdminPort: Int,
                 edge: NginxEdge?, mediaEnvironment: [String: String]) {
        self.identity = identity
        self.media = media
        self.storageDirectory = storageDirectory
        self.mediaAdminPort = mediaAdminPort
        self.edge = edge
        self.mediaEnvironment = mediaEnvironment
    }

    /// Settings added to every media of this stack (e.g. `RV_MEDIA_STORAGE=s3` and its bucket).
    package let mediaEnvironment: [String: String]

    /// Starts both (and the edge when `withEdge`), media with `mediaEnvironment` added to its
    /// settings; fails with the db.sh hint when Postgres is down.
    package static func start(withEdge: Bool = false, mediaEnvironment: [String: String] = [:]) async throws -> MediaStack {
        await MediaBackendLock.shared.acquire(mediaEnvironment["RV_MEDIA_STORAGE"] ?? "local")
        do {
            return try await startHoldingBackend(withEdge: withEdge, mediaEnvironment: mediaEnvironment)
        } catch {
            await MediaBackendLock.shared.release()
            throw error
        }
    }

    private static func startHoldingBackend(withEdge: Bool, mediaEnvironment: [String: String]) async throws -> MediaStack {
        try await TestDatabase.makePool(TestDatabase.configuration(role: "media", poolSize: 1)).close()
        let identity = try await DiscoveryStack.startIdentity(credentials: "media=\(mediaSecret)")
        let storage = retainSharedStorage()
        let adminPort = try LocalPort.free()
        do {
            let media = try await startMedia(identityPort: identity.port, storage: storage, adminPort: adminPort,
                                             environment: mediaEnvironment)
            do {
                let edge = withEdge
                    ? try await NginxEdge.start(routes: ["/rendezvous.identity.": identity.port, "/rendezvous.media.": media.port],
                                                httpRoutes: ["/media/v1/blobs/": adminPort])
                    : nil
                return MediaStack(identity: identity, media: media, storageDirectory: storage, mediaAdminPort: adminPort, edge: edge,
                                  mediaEnvironment: mediaEnvironment)
            } catch {
                await media.stop()
                throw error
            }
        } catch {
            await identity.stop()
            releaseSharedStorage()
            throw error
        }
    }

    /// Another media instance on the same database and blob folder (as a second replica behind
    /// the edge), its settings changed by `environment` and its admin listener on `adminPort`
    /// (0: any); the caller stops it.
    package func startAnotherMedia(environment: [String: String] = [:], adminPort: Int = 0) async throws -> EndToEndServiceProcess {
        try await Self.startMedia(identityPort: identity.port, storage: storageDirectory, adminPort: adminPort,
                                  environment: mediaEnvironment.merging(environment) { $1 })
    }

    /// A media executable following identity on `identityPort`; its reveal job looks for due
    /// events (and photos to render) every 50 ms and its sweeper for expired uploads every 100 ms,
    /// so tests wait little.
    private static func startMedia(identityPort: Int, storage: String, adminPort: Int,
                                   environment: [String: String]) async throws -> EndToEndServiceProcess {
        try await EndToEndServiceProcess.start("media", environment: environment.merging([
            "RV_MEDIA_PORT": "0", "RV_MEDIA_ADMIN_PORT": String(adminPort),
            "RV_PG_URL_MEDIA": DiscoveryStack.postgresURL(role: "media"),
            "RV_IDENTITY_ADDRESS": "127.0.0.1:\(identityPort)", "RV_LOG_LEVEL": "warning",
            "RV_SERVICE_NAME": "media", "RV_SERVICE_SECRET": mediaSecret,
            "RV_MEDIA_STORAGE_DIR": storage, "RV_MEDIA_URL_SECRET": urlSecret, "RV_MEDIA_REVEAL_INTERVAL_MS": "50",
            "RV_MEDIA_SWEEP_INTERVAL_MS": "100", "RV_MEDIA_RENDITION_INTERVAL_MS": "50",
        ]) { configured, _ in configured })
    }

    /// Both processes' logs, for a failure's report.
    package var logs: String { "media log:\n\(media.log)\nidentity log:\n\(identity.log)" }

    package func stop() async {
        edge?.stop()
        await media.stop()
        await identity.stop()
        Self.releaseSharedStorage()
        await MediaBackendLock.shared.release()
    }

    /// Removes the shared blob folder once no stack of this process uses it.
    /// The blob folder every media of this test process uses (any stack's media may render,
    /// sweep or delete another's blobs: they share the database), kept until the matching
    /// `releaseSharedStorage`.
    package static func retainSharedStorage() -> String {
        running.withLock { $0 += 1 }
        return sharedStorage
    }

    package static func releaseSharedStorage() {
        let last = running.withLock { count -> Bool in
            count -= 1
            return count == 0
        }
        if last { try? FileManager.default.removeItem(atPath: sharedStorage) }
    }
}
