import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.production.v1.Casting`: the application wizard (P1) and the producers' inbox
/// and pipeline (P2). Rules are documented in production.proto.
struct CastingService: CastingProvider {
    let pool: PostgresPool
    let applications: ApplicationStore
    let settings: ProductionSettings

    func saveApplication(_ request: Production.SaveApplicationRequest, context: ServerCallContext) async throws
        -> Production.Application {
        let caller = try ProductionCaller(context, settings: settings)
        guard let step = request.step else { throw ProductionError.invalid("name the step to save") }
        switch step {
        case .aboutYou(let about): try ApplicationRules.validate(about)
        case .story(let story): try ApplicationRules.validate(story)
        case .look(let look): try ApplicationRules.validate(look)
        case .consent(let consent): try ApplicationRules.validate(consent)
        }
        return try await pool.withTransaction { connection in
            guard let current = try await applications.lockOwn(app: caller.app, account: caller.id, create: true,
                                                               on: connection) else {
                throw ProductionError.applicationNotFound
            }
            guard current.status == .draft || current.status == .pending else {
                throw ProductionError.applicationLocked(status: ApplicationRules.name(current.status))
            }
            return try await applications.save(step, into: try RequestID.parse(current.id, field: "id"), on: connection)
        }
    }

    func submitApplication(_ request: Production.SubmitApplicationRequest, context: ServerCallContext) async throws
        -> Production.Application {
        let caller = try ProductionCaller(context, settings: settings)
        return try await pool.withTransaction { connection in
            guard let current = try await applications.lockOwn(app: caller.app, account: caller.id, create: false,
                                                               on: connection) else {
                throw ProductionError.applicationNotFound
            }
            guard current.status == .draft else { return current }
            let missing = ApplicationRules.steps.filter { !current.completedSteps.contains($0) }
            guard missing.isEmpty else { throw ProductionError.applicationIncomplete(missing: missing) }
            return try await applications.submit(try RequestID.parse(current.id, field: "id"), app: caller.app,
                                                 on: connection)
        }
    }

    func getMyApplication(_ request: Production.GetMyApplicationRequest, context: ServerCallContext) async throws
        -> Production.Application {
        let caller = try ProductionCaller(context, settings: settings)
        let application = try await pool.withConnection { connection in
            try await applications.own(app: caller.app, account: caller.id, on: connection)
        }
        guard let application else { throw ProductionError.applicationNotFound }
        return application
    }

    func listApplications(_ request: Production.ListApplicationsRequest, context: ServerCallContext) async throws
        -> Production.ListApplicationsResponse {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        guard request.status.rawValue >= 0, request.status.rawValue <= 6, request.status != .draft else {
            throw ProductionError.invalid("status must be a submitted status")
        }
        let (size, after) = try Paging.page(request.pageSize, request.pageToken)
        let rows = try await pool.withConnection { connection in
            try await applications.list(app: caller.app, status: request.status, after: after, limit: size + 1, on: connection)
        }
        let page = rows.prefix(size)
        var response = Production.ListApplicationsResponse(applications: Array(page))
        if rows.count > size, let last = page.last, let id = UUID(uuidString: last.id) {
            response.nextPageToken = PageCursor(microseconds: last.submittedAt?.microseconds ?? 0, id: id).token
        }
        return response
    }

    func getApplication(_ request: Production.GetApplicationRequest, context: ServerCallContext) async throws
        -> Production.Application {
        let caller = try ProductionCaller(context, settings: settings)
        let id = try RequestID.parse(request.applicationID, field: "application_id")
        let application = try await pool.withConnection { connection in
            try await applications.find(id, app: caller.app, on: connection)
        }
        // Another member's application does not exist for the caller.
        guard let application, caller.isProducer || application.accountID == caller.id.lowercased else {
            throw ProductionError.applicationNotFound
        }
        return application
    }

    func setApplicationStatus(_ request: Production.SetApplicationStatusRequest, context: ServerCallContext) async throws
        -> Production.Application {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let id = try RequestID.parse(request.applicationID, field: "application_id")
        guard (3...6).contains(request.status.rawValue) else {
            throw ProductionError.invalid("status must be REVIEWING, SHORTLISTED, SELECTED or PASSED")
        }
        return try await pool.withTransaction { connection in
            guard let current = try await applications.find(id, app: caller.app, lock: true, on: connection),
                  current.status != .draft else {
                throw ProductionError.applicationNotFound
            }
            if current.status == request.status { return current }
            guard ApplicationRules.allowed(from: current.status).contains(request.status) else {
                throw ProductionError.outOfOrder(from: ApplicationRules.name(current.status),
                                                 to: ApplicationRules.name(request.status))
            }
            return try await applications.setStatus(of: current, to: request.status, app: caller.app, on: connection)
        }
    }

    func assignToEpisode(_ request: Production.AssignToEpisodeRequest, context: ServerCallContext) async throws
        -> Production.Application {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let id = try RequestID.parse(request.applicationID, field: "application_id")
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        return try await pool.withTransaction { connection in
            guard let application = try await applications.find(id, app: caller.app, lock: true, on: connection),
                  application.status != .draft else {
                throw ProductionError.applicationNotFound
            }
            guard application.status == .selected else { throw ProductionError.notSelected }
            guard let episode = try await EpisodeStore.find(episodeID, app: caller.app, lock: true, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            if application.episodeIDs.contains(episode.id) { return application }
            // The cast is fixed once an episode is scheduled: its consent gate has been passed.
            guard episode.status.rawValue <= Production.EpisodeStatus.casting.rawValue else {
                throw ProductionError.episodeLocked
            }
            return try await applications.assign(id, account: try RequestID.parse(application.accountID, field: "account_id"),
                                                 to: episodeID, on: connection)
        }
    }
}

/// Page sizes and tokens of production's lists (0: 50, at most 100).
enum Paging {
    static func page(_ size: Int32, _ token: String) throws(ProductionError) -> (size: Int, after: PageCursor?) {
        (try PageCursor.pageSize(size, defaultSize: 50, maximumSize: 100, invalid: ProductionError.invalid("page_size must not be negative")),
         try PageCursor.parse(token, invalid: ProductionError.invalidPageToken))
    }
}
