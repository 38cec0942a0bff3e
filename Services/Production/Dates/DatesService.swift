import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.production.v1.Dates`: dates of matched pairs and their reviews (P10). Only the
/// match's two people act on a date; producers read them all.
struct DatesService: DatesProvider {
    let pool: PostgresPool
    let settings: ProductionSettings

    func proposeDate(_ request: Production.ProposeDateRequest, context: ServerCallContext) async throws -> Production.Date {
        let caller = try ProductionCaller(context, settings: settings)
        let matchID = try RequestID.parse(request.matchID, field: "match_id")
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let at = try RequestTime.microseconds(request.scheduledAt, field: "scheduled_at")
        guard at > now, at <= now + 366 * 86_400 * 1_000_000 else {
            throw ProductionError.invalid("scheduled_at must be in the future, at most a year ahead")
        }
        return try await pool.withTransaction { connection in
            guard let accounts = try await DateStore.activeMatch(matchID, app: caller.app, on: connection),
                  accounts.contains(caller.id) else {
                throw ProductionError.matchNotFound
            }
            guard try await StudioStore.restaurantExists(request.restaurantID, app: caller.app, on: connection) else {
                throw ProductionError.restaurantNotFound
            }
            let id = try await DateStore.insert(app: caller.app, match: matchID, accounts: accounts, proposedBy: caller.id,
                                                restaurant: request.restaurantID, at: at, on: connection)
            return try await DateStore.find(id, app: caller.app, on: connection)!  // inserted just above
        }
    }

    func confirmDate(_ request: Production.DateRequest, context: ServerCallContext) async throws -> Production.Date {
        try await move(request, context: context, to: .confirmed, from: [.proposed]) { date, caller in
            guard date.proposedBy != caller.lowercased else {
                throw ProductionError.cannotConfirmOwnDate
            }
        }
    }

    func completeDate(_ request: Production.DateRequest, context: ServerCallContext) async throws -> Production.Date {
        try await move(request, context: context, to: .completed, from: [.confirmed]) { _, _ in }
    }

    func cancelDate(_ request: Production.DateRequest, context: ServerCallContext) async throws -> Production.Date {
        try await move(request, context: context, to: .cancelled, from: [.proposed, .confirmed]) { _, _ in }
    }

    func reviewDate(_ request: Production.ReviewDateRequest, context: ServerCallContext) async throws -> Production.Date {
        let caller = try ProductionCaller(context, settings: settings)
        let id = try RequestID.parse(request.dateID, field: "date_id")
        guard (1...10).contains(request.vibeTags.count),
              request.vibeTags.allSatisfy({ (1...30).contains($0.trimmingCharacters(in: .whitespaces).count) }) else {
            throw ProductionError.invalid("vibe_tags: 1-10 tags of 1-30 characters")
        }
        guard request.note.count <= 1_000 else { throw ProductionError.invalid("note is at most 1,000 characters") }
        return try await pool.withTransaction { connection in
            guard let date = try await DateStore.find(id, app: caller.app, lock: true, on: connection),
                  date.accountIDs.contains(caller.id.lowercased) else {
                throw ProductionError.dateNotFound
            }
            guard date.status == .completed else { throw ProductionError.dateState(status: Self.name(date.status)) }
            guard try await DateStore.review(id, by: caller.id, request, on: connection) else { throw ProductionError.alreadyReviewed }
            return try await DateStore.find(id, app: caller.app, on: connection)!  // locked above
        }
    }

    func listDates(_ request: Production.ListDatesRequest, context: ServerCallContext) async throws -> Production.ListDatesResponse {
        let caller = try ProductionCaller(context, settings: settings)
        let match = try RequestID.optional(request.matchID, field: "match_id")
        let (size, after) = try Paging.page(request.pageSize, request.pageToken)
        let dates = try await pool.withConnection { connection in
            if let match {
                guard let accounts = try await DateStore.matchExists(match, app: caller.app, on: connection),
                      caller.isProducer || accounts.contains(caller.id) else {
                    throw ProductionError.matchNotFound
                }
            }
            // Producers read every date of a match they name; otherwise everyone their own.
            let account = caller.isProducer && match != nil ? nil : caller.id
            return try await DateStore.list(app: caller.app, account: account, match: match, after: after, limit: size + 1,
                                            on: connection)
        }
        let page = dates.prefix(size)
        var response = Production.ListDatesResponse(dates: Array(page))
        if dates.count > size, let last = page.last, let id = UUID(uuidString: last.id) {
            response.nextPageToken = PageCursor(microseconds: last.createdAt?.microseconds ?? 0, id: id).token
        }
        return response
    }

    /// Moves a date the caller is part of from one of `from` to `status`; asking for the status
    /// it already has returns it.
    private func move(_ request: Production.DateRequest, context: ServerCallContext, to status: Production.DateStatus,
                      from: Set<Production.DateStatus>,
                      check: @Sendable (Production.Date, UUID) throws -> Void) async throws -> Production.Date {
        let caller = try ProductionCaller(context, settings: settings)
        let id = try RequestID.parse(request.dateID, field: "date_id")
        return try await pool.withTransaction { connection in
            guard let date = try await DateStore.find(id, app: caller.app, lock: true, on: connection),
                  date.accountIDs.contains(caller.id.lowercased) else {
                throw ProductionError.dateNotFound
            }
            if date.status == status { return date }
            guard from.contains(date.status) else { throw ProductionError.dateState(status: Self.name(date.status)) }
            try check(date, caller.id)
            if status != .cancelled {
                guard let match = UUID(uuidString: date.matchID),
                      try await DateStore.activeMatch(match, app: caller.app, on: connection) != nil else {
                    throw ProductionError.matchNotFound
                }
            }
            try await DateStore.setStatus(id, to: status, on: connection)
            return try await DateStore.find(id, app: caller.app, on: connection)!  // locked above
        }
    }

    static func name(_ status: Production.DateStatus) -> String {
        switch status {
        case .proposed: "proposed"
        case .confirmed: "confirmed"
        case .completed: "completed"
        case .cancelled: "cancelled"
        default: "unspecified"
        }
    }
}
