import Auth
import Contracts
import CryptoCore
import Foundation
import Logging
import Postgres
import RPC
import Runtime

/// Works the push queue on one instance: leases due jobs (other instances skip them), looks up
/// each recipient's active APNs tokens in identity, sends to each, logs each delivery and
/// finishes the job. An incoming call (push type voip) goes to the recipient's PushKit tokens
/// (`apns-push-type: voip`, topic `<bundle id>.voip`), or to their alert tokens as a
/// time-sensitive alert when they registered none; every other push to alert tokens only. A token already logged for the job (an instance crashed mid-job and the
/// lease ran out) is not sent again.
struct PushWorker: Sendable {
    let pool: PostgresPool
    let sender: PushSender
    let settings: PushSettings
    let deliveries: PushDeliveryCounts
    let logger: Logger

    /// Runs until cancelled.
    func run() async {
        var lastPrune = ContinuousClock.now
        while !Task.isCancelled {
            do {
                let jobs = try await PushQueue.lease(limit: settings.concurrency, for: settings.lease, pool: pool)
                if jobs.isEmpty {
                    try? await Task.sleep(for: settings.pollInterval)
                } else {
                    await withTaskGroup(of: Void.self) { group in
                        for job in jobs { group.addTask { await work(job) } }
                    }
                }
                if ContinuousClock.now - lastPrune > .seconds(600) {
                    lastPrune = .now
                    try await PushQueue.prune(olderThan: .seconds(86_400), logOlderThan: .seconds(30 * 86_400), pool: pool)
                }
            } catch {
                logger.warning("push queue unavailable", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Works `job` in a span continuing the trace that planned it (`EventSpan`).
    func work(_ job: PushJob) async {
        try? await EventSpan.consume(PushQueue.destination, context: job.trace, messageID: String(job.id),
                                     consumer: "push-worker") {
            await send(job)
        }
    }

    private func send(_ job: PushJob) async {
        do {
            guard let topic = settings.topics[job.app] else {
                logger.warning("no APNs topic for app; push dropped", metadata: ["app": "\(job.app)"])
                try await PushQueue.finish(job.id, pool: pool)
                return
            }
            var tokens: [Devices.PushToken]
            do {
                var request = Devices.ListActivePushTokensRequest()
                request.app = job.app
                request.accountIDs = [job.account.uuidString.lowercased()]
                tokens = try await sender.devices.listActivePushTokens(request, options: sender.options).tokens
                    .filter { $0.platform == .apns }
            } catch {
                // Identity is unreachable: try again later, giving up after a day's worth.
                if job.leases >= 50 {
                    try await PushQueue.finish(job.id, pool: pool)
                } else {
                    try await PushQueue.postpone(job.id, by: .seconds(min(60, 1 << min(job.leases, 6))), pool: pool)
                }
                return
            }
            let done = job.leases > 1 ? try await loggedTokens(of: job.id) : []
            var notification = APNsNotification(topic: topic, priority: job.priority, collapseID: job.collapseID,
                                                expiration: job.expiresAt, payload: job.payload)
            let voip = tokens.filter { $0.kind == .voip }
            if job.pushType == "voip" && !voip.isEmpty {
                tokens = voip
                notification.topic = topic + ".voip"
                notification.pushType = "voip"
            } else {
                tokens.removeAll { $0.kind == .voip }
            }
            var unsent = 0
            for token in tokens {
                let digest = SHA256Digest.hash(Array(token.token.lowercased().utf8))
                guard !done.contains(digest) else { continue }
                let delivery = await sender.send(notification, to: token, app: job.app)
                deliveries.record(delivery.status)
                // APNs down (5xx, 429, no connection) past the sender's retries: not logged, so
                // a later pass sends it again, until the push expires.
                if delivery.status == .failed && !Self.expired(job) {
                    unsent += 1
                    continue
                }
                try await recording { try await log(delivery, job: job, token: token, digest: digest) }
            }
            if unsent > 0 {
                try await recording { try await PushQueue.postpone(job.id, by: Self.retryDelay(afterLeases: job.leases), pool: pool) }
            } else {
                try await recording { try await PushQueue.finish(job.id, pool: pool) }
            }
        } catch {
            // The lease runs out and another pass retries; logged tokens are not sent again.
            logger.warning("push job failed", metadata: ["job": "\(job.id)", "error": "\(error)"])
        }
    }

    /// Runs `write`, a record of the job's progress (a delivery, its end, its next try), again
    /// until it succeeds, for up to half the lease: Postgres restarting under it must not leave
    /// a sent push unlogged (sent again once the lease runs out) nor the job waiting out the
    /// whole lease.
    private func recording(_ write: () async throws -> Void) async throws {
        let deadline = ContinuousClock.now + settings.lease / 2
        while true {
            do {
                return try await write()
            } catch where ContinuousClock.now < deadline && !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// The wait before a job APNs could not take is tried again: 1 s, doubling to at most 5 s,
    /// so a push planned during an outage goes out within seconds of APNs answering again.
    static func retryDelay(afterLeases leases: Int) -> Duration {
        .seconds(min(5, 1 << min(max(leases - 1, 0), 3)))
    }

    /// Whether the push's expiration (when APNs itself would stop trying) has passed.
    static func expired(_ job: PushJob) -> Bool {
        Int64(Date().timeIntervalSince1970) >= job.expiresAt
    }

    private func loggedTokens(of job: Int64) async throws -> Set<[UInt8]> {
        try await pool.withConnection { connection in
            Set(try await connection.query("SELECT token_sha256 FROM messaging.push_deliveries WHERE job_id = $1",
                                           [.int64(job)]).map { try $0.decode(0, as: [UInt8].self) })
        }
    }

    private func log(_ delivery: PushDelivery, job: PushJob, token: Devices.PushToken, digest: [UInt8]) async throws {
        try await pool.withConnection { connection in
            _ = try await connection.execute("""
                INSERT INTO messaging.push_deliveries (job_id, account_id, app, category, token_suffix, token_sha256,
                                                       environment, status, http_status, reason, attempts, apns_id)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                ON CONFLICT (job_id, token_sha256) DO NOTHING
                """, [.int64(job.id), .uuid(job.account), .text(job.app), .int16(job.category.rawValue),
                      .text(String(token.token.suffix(8))), .bytea(digest),
                      .text(token.environment == .sandbox ? "sandbox" : "production"), .text(delivery.status.rawValue),
                      .int32(Int32(delivery.httpStatus)), .text(delivery.reason.map { String($0.prefix(200)) }),
                      .int32(Int32(delivery.attempts)), .text(delivery.apnsID)])
        }
    }
}
