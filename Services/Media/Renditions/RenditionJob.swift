import Contracts
import Foundation
import Logging
import Postgres
import Runtime

/// Renders photos off the event loops: a background pass on every instance claims pending
/// contents (row leases, FOR UPDATE SKIP LOCKED) and renders them on `threads`, the renditions'
/// own bounded pool; a download of a content not rendered yet claims it itself and waits, with a
/// bound. Either way a content is claimed by one holder at a time and recorded only by it.
struct RenditionJob: Sendable {
    let pool: PostgresPool
    let storage: any BlobStorage
    /// Where libvips runs; its size is how many photos render at once on this instance.
    let threads: BlockingWorkPool
    let concurrency: Int
    let interval: Duration
    let logger: Logger

    /// How long a claim lasts: far beyond a render of the largest photo allowed.
    static let leaseSeconds = 120
    /// Claims of one content before a passing failure (storage, database) becomes a permanent one.
    static let maximumAttempts: Int32 = 5

    func run() async {
        while !Task.isCancelled {
            do {
                while try await renderDue() > 0 {}
            } catch is CancellationError {
                return
            } catch {
                logger.error("rendition pass failed", metadata: ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Claims and renders up to `concurrency` pending contents: how many it claimed.
    func renderDue() async throws -> Int {
        let claims = try await pool.withConnection { connection in
            try await RenditionStore.claim(limit: concurrency, seconds: Self.leaseSeconds, on: connection)
        }
        await withTaskGroup(of: Void.self) { group in
            for claim in claims { group.addTask { await render(claim) } }
        }
        return claims.count
    }

    /// `sha256`'s renditions once they are made or failed, rendering them here when nobody has
    /// claimed them; nil when they are still being made after `bound`.
    func renditions(of sha256: String, contentType: String, within bound: Duration) async throws -> RenditionStore.Renditions? {
        let deadline = ContinuousClock.now + bound
        var pause = Duration.milliseconds(10)
        while true {
            let current = try await pool.withConnection { connection in
                try await RenditionStore.renditions([sha256], on: connection)[sha256]
            }
            if let current, current.status != .pending { return current }
            let claims = try await pool.withConnection { connection in
                if current == nil { try await RenditionStore.request(sha256, contentType: contentType, on: connection) }
                return try await RenditionStore.claim(limit: 1, only: sha256, seconds: Self.leaseSeconds, on: connection)
            }
            // The render outlives this request: a caller that stops waiting leaves it to finish.
            for claim in claims { Task { await render(claim) } }
            guard ContinuousClock.now + pause < deadline else { return nil }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(100))
        }
    }

    /// Renders one claimed content, stores its renditions and records them (or the failure).
    func render(_ claim: RenditionStore.Claim) async {
        do {
            let original = try await storage.read(sha256: claim.sha256, range: nil)
            guard let type = MediaType(rawValue: claim.contentType) else {
                try await pool.withConnection { try await RenditionStore.fail(claim, reason: "not an image type", on: $0) }
                return
            }
            let rendered: Result<[PhotoRenderer.Output], RenditionFailure> = try await threads.run {
                do throws(RenditionFailure) {
                    return .success(try PhotoRenderer.render(original, type: type))
                } catch {
                    return .failure(error)
                }
            }
            switch rendered {
            case .failure(let failure):
                logger.info("photo cannot be rendered", metadata: ["sha256": .string(claim.sha256), "error": .string("\(failure)")])
                try await pool.withConnection { try await RenditionStore.fail(claim, reason: failure.description, on: $0) }
            case .success(let outputs):
                var files: [RenditionStore.File] = []
                for output in outputs {
                    let key = RenditionStore.key(source: claim.sha256, side: output.side)
                    try await write(output.bytes, key: key)
                    files.append(RenditionStore.File(side: output.side, contentType: output.contentType.rawValue,
                                                     size: Int64(output.bytes.count), width: output.width, height: output.height,
                                                     key: key))
                }
                let recorded = try await pool.withTransaction { try await RenditionStore.complete(claim, files: files, on: $0) }
                if !recorded { try await dropIfOrphaned(claim.sha256, keys: files.map(\.key)) }
            }
        } catch {
            logger.error("rendition failed", metadata: ["sha256": .string(claim.sha256), "error": .string("\(error)")])
            try? await pool.withConnection { connection in
                if claim.attempts >= Self.maximumAttempts {
                    try await RenditionStore.fail(claim, reason: "\(RenditionStore.gaveUp)\(claim.attempts) attempts: \(error)", on: connection)
                } else {
                    try await RenditionStore.release(claim, retryAfter: 5, on: connection)
                }
            }
        }
    }

    /// Deletes renditions written for a content whose row went while they were made (its last
    /// blob was deleted); when the row is there (claimed again), the same keys are its files.
    private func dropIfOrphaned(_ sha256: String, keys: [String]) async throws {
        try await pool.withTransaction { connection in
            try await BlobStore.lockContent(sha256, on: connection)
            guard try await connection.query("SELECT 1 FROM media.renditions WHERE sha256 = $1", [.text(sha256)]).isEmpty else {
                return
            }
            for key in keys { try await storage.delete(sha256: key) }
        }
    }

    /// Stores `bytes` under `key` the way uploads become blobs: a part, made durable, then renamed
    /// into place (a content already there stays as it is).
    private func write(_ bytes: [UInt8], key: String) async throws {
        let part = UUID.random()
        let writer = try await storage.openPart(part)
        do {
            do {
                try await writer.append(bytes)
            } catch {
                try? await writer.close()
                throw error
            }
            try await writer.close()
            try await storage.commitPart(part, sha256: key)
        } catch {
            try? await storage.deletePart(part)
            throw error
        }
    }
}
