import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// `rendezvous.messaging.v1.Realtime`: the caller's stream — what it missed after its cursor
/// (from the outbox), then Ready, then live events from this instance's hub. Rules are
/// documented in realtime.proto.
///
/// The replay reaches past the hub's position to every event settled when the call came
/// (`RealtimeFeed.resumableCursors`): the hub learns of commits a moment later (NOTIFY), and an
/// event committed before a resume must come before Ready, every time, not live after it.
struct RealtimeService: RealtimeProvider {
    let pool: PostgresPool
    let tiers: TierCatalog
    let feed: RealtimeFeed
    let hub: RealtimeHub
    /// Events read per replay query.
    var replayBatch = 256
    /// Longest a resume waits for transactions older than it to end before its replay.
    var settlePatience: Duration = .seconds(1)

    func subscribe(_ request: Realtime.SubscribeRequest, writer: ResponseWriter<Realtime.RealtimeEvent>,
                   context: ServerCallContext) async throws {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        // A subscription: a draining server ends it at once, and the app resumes from its cursor.
        context.endWhenServerDrains()
        guard request.afterCursor >= 0 else { throw MessagingError.invalidCursor }
        let receipts = try await tiers.showsReadReceipts(app: caller.app, tier: caller.tier)
        func shown(_ event: Realtime.RealtimeEvent) -> Bool {
            if case .readReceipt? = event.event { return receipts }
            return true
        }
        // Registered before the replay: whatever the hub dispatches from here on is buffered
        // for this stream while the replay reads everything up to the position it started at.
        let subscription = hub.subscribe(account)
        // The stream lasts as long as the token it was opened with: then UNAUTHENTICATED
        // TOKEN_EXPIRED, and the app resumes with a fresh one (a signed-out session cannot).
        let expiry = TokenExpiry.seconds(of: context).map { expiresAt in
            Task {
                let left = Double(expiresAt) - Date().timeIntervalSince1970
                if left > 0 {
                    do { try await Task.sleep(for: .milliseconds(Int64(left * 1000))) } catch { return }
                }
                subscription.end(throwing: MessagingError.tokenExpired)
            }
        }
        defer { expiry?.cancel() }
        var last = request.afterCursor
        // Everything up to here is replayed from the outbox, the rest comes from the hub (which
        // hands this stream every event after its position, so the two overlap, never miss).
        var through = subscription.position
        if last > 0 {
            var (resumable, settled) = try await pool.withConnection { try await feed.resumableCursors(on: $0) }
            guard last < resumable.upperBound else { throw MessagingError.invalidCursor }
            guard last >= resumable.lowerBound else { throw MessagingError.cursorExpired }
            // An event committed before this call may still sit above the settled cursor while
            // an older transaction anywhere on the cluster is open (another database's too): wait
            // a moment for those to end, so it is replayed before Ready and not live after it.
            if settled < resumable.upperBound - 1 {
                settled = try await feed.settled(reaching: resumable.upperBound - 1, within: settlePatience, pool: pool)
            }
            through = max(through, settled)
            while last < through {
                let page = try await pool.withConnection { [last, through] connection in
                    try await feed.events(for: account, after: last, through: through, limit: replayBatch, on: connection)
                }
                for event in page.events where shown(event) { try await writer.write(event) }
                guard let end = page.readThrough, page.full else { break }
                last = end
            }
        }
        last = max(last, through)
        var ready = Realtime.RealtimeEvent()
        ready.event = .ready(Realtime.Ready(cursor: last))
        try await writer.write(ready)
        for try await event in subscription.events where event.cursor > last {
            if shown(event) { try await writer.write(event) }
            last = event.cursor
        }
    }
}
