import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.production.v1.Points`: members read their own balance and entries; services that
/// witness an award (RV_POINTS_AWARDERS) grant it, once.
struct PointsService: PointsProvider {
    static let awardMethod = "/\(PointsClient.serviceName)/Award"

    let pool: PostgresPool
    let settings: ProductionSettings

    func getBalance(_ request: Points.GetBalanceRequest, context: ServerCallContext) async throws -> Points.Balance {
        let (app, account) = try member(context)
        return try await pool.withConnection { try await PointsStore.balance(of: account, app: app, on: $0) }
    }

    func listEntries(_ request: Points.ListEntriesRequest, context: ServerCallContext) async throws -> Points.ListEntriesResponse {
        let (app, account) = try member(context)
        let size = try PageCursor.pageSize(request.pageSize, defaultSize: 50, maximumSize: 100,
                                           invalid: PointsError.invalid("page_size must not be negative"))
        let after = try PageCursor.parse(request.pageToken, invalid: PointsError.invalidPageToken)
        let entries = try await pool.withConnection { connection in
            try await PointsStore.list(of: account, app: app, after: after, limit: size + 1, on: connection)
        }
        let page = entries.prefix(size)
        var response = Points.ListEntriesResponse(entries: Array(page))
        if entries.count > size, let last = page.last, let id = UUID(uuidString: last.id) {
            response.nextPageToken = PageCursor(microseconds: last.createdAt?.microseconds ?? 0, id: id).token
        }
        return response
    }

    func award(_ request: Points.AwardRequest, context: ServerCallContext) async throws -> Points.AwardResponse {
        let service = try context.requireService()
        guard settings.pointsApps.contains(request.app) else { throw PointsError.appNotSupported(request.app) }
        guard let account = UUID(uuidString: request.accountID) else { throw PointsError.invalid("account_id is not a UUID") }
        guard (1...100).contains(request.encounterID.count) else { throw PointsError.invalid("encounter_id is required") }
        guard let points = PointsStore.points(for: request.reason) else { throw PointsError.invalid("reason is required") }
        return try await pool.withTransaction { connection in
            let (entry, granted) = try await PointsStore.award(app: request.app, account: account, encounter: request.encounterID,
                                                               reason: request.reason, points: points, by: service,
                                                               on: connection)
            return Points.AwardResponse(entry: entry, granted: granted,
                                        balance: try await PointsStore.balance(of: account, app: request.app, on: connection))
        }
    }

    /// The calling member's app (one with points) and account.
    private func member(_ context: ServerCallContext) throws -> (String, UUID) {
        let caller = try context.requireAccount()
        guard settings.pointsApps.contains(caller.app) else { throw PointsError.appNotSupported(caller.app) }
        guard let id = UUID(uuidString: caller.accountID) else { throw ProductionError.accountNotFound }
        return (caller.app, id)
    }
}
