import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.discovery.v1.GroupSessions`: Swivo's group decisions. Rules are documented in
/// sessions.proto.
struct GroupSessionsService: GroupSessionsProvider {
    let pool: PostgresPool
    let store: SessionStore
    let events: EventStreamService

    /// The event types that change a session, which `WatchSession` follows.
    static let eventTypes = ["SessionJoined", "SessionMatched", "SessionClosed"]

    func listCategories(_ request: Sessions.ListCategoriesRequest, context: ServerCallContext) async throws
        -> Sessions.ListCategoriesResponse {
        _ = try context.requireAccount()
        return Sessions.ListCategoriesResponse(categories: try await pool.withConnection { try await store.categories(on: $0) })
    }

    func createSession(_ request: Sessions.CreateSessionRequest, context: ServerCallContext) async throws -> Sessions.GroupSession {
        let caller = try context.requireAccount()
        let creator = try caller.accountUUID()
        let quorum = request.quorum == 0 ? 2 : request.quorum
        guard (2...5).contains(quorum) else { throw SessionError.invalidQuorum }
        return try await pool.withTransaction { connection in
            guard try await store.categoryExists(request.categoryID, on: connection) else { throw SessionError.categoryNotFound }
            let id = try await store.create(app: caller.app, category: request.categoryID, quorum: quorum, creator: creator,
                                            on: connection)
            return try await loaded(id, on: connection)
        }
    }

    func joinSession(_ request: Sessions.JoinSessionRequest, context: ServerCallContext) async throws -> Sessions.JoinSessionResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let code = request.inviteCode.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.count == 6, code.allSatisfy({ SessionStore.codeAlphabet.contains($0) }) else { throw SessionError.invalidJoinCode }
        return try await pool.withTransaction { connection in
            guard let session = try await store.lock(code: code, app: caller.app, on: connection) else {
                throw SessionError.invalidJoinCode
            }
            if try await store.isParticipant(account, in: session.id, on: connection) {
                return Sessions.JoinSessionResponse(session: try await loaded(session.id, on: connection), readOnly: session.status != .open)
            }
            guard session.status == .open else {
                return Sessions.JoinSessionResponse(session: try await loaded(session.id, on: connection), readOnly: true)
            }
            guard try await store.participantCount(of: session.id, on: connection) < session.quorum else {
                throw SessionError.sessionFull(quorum: session.quorum)
            }
            try await store.join(session.id, account: account, app: caller.app, on: connection)
            return Sessions.JoinSessionResponse(session: try await loaded(session.id, on: connection), readOnly: false)
        }
    }

    func getSession(_ request: Sessions.GetSessionRequest, context: ServerCallContext) async throws -> Sessions.GroupSession {
        let (caller, id) = try Self.sessionCall(request.sessionID, context)
        return try await pool.withConnection { connection in
            try await participantView(id, account: try caller.accountUUID(), app: caller.app, on: connection)
        }
    }

    func getDeck(_ request: Sessions.GetDeckRequest, context: ServerCallContext) async throws -> Sessions.Deck {
        let (caller, id) = try Self.sessionCall(request.sessionID, context)
        let account = try caller.accountUUID()
        return try await pool.withConnection { connection in
            let session = try await participantView(id, account: account, app: caller.app, on: connection)
            return try await store.deck(id, category: session.category?.categoryID ?? "", for: account, on: connection)
        }
    }

    func likeOption(_ request: Sessions.LikeOptionRequest, context: ServerCallContext) async throws -> Sessions.LikeOptionResponse {
        let (caller, id) = try Self.sessionCall(request.sessionID, context)
        let account = try caller.accountUUID()
        return try await pool.withTransaction { connection in
            let session = try await store.lock(id, participant: account, app: caller.app, on: connection)
            switch session.status {
            case .matched:
                let option = try await store.option(session.matchedOptionID ?? "", in: session.categoryID, on: connection)
                return Sessions.LikeOptionResponse(matchFound: true, matchedOption: option)
            case .closed:
                throw SessionError.sessionClosed
            case .open:
                guard let option = try await store.option(request.optionID, in: session.categoryID, on: connection) else {
                    throw SessionError.optionNotFound
                }
                let likes = try await store.like(option.optionID, in: id, by: account, on: connection)
                guard likes >= Int(session.quorum) else { return Sessions.LikeOptionResponse(matchFound: false) }
                try await store.markMatched(id, option: option, app: caller.app, on: connection)
                return Sessions.LikeOptionResponse(matchFound: true, matchedOption: option)
            }
        }
    }

    func closeSession(_ request: Sessions.CloseSessionRequest, context: ServerCallContext) async throws -> Sessions.GroupSession {
        let (caller, id) = try Self.sessionCall(request.sessionID, context)
        let account = try caller.accountUUID()
        return try await pool.withTransaction { connection in
            let session = try await store.lock(id, participant: account, app: caller.app, on: connection)
            guard session.creatorID == account else { throw SessionError.notSessionCreator }
            if session.status == .open { try await store.markClosed(id, app: caller.app, on: connection) }
            return try await loaded(id, on: connection)
        }
    }

    func listSessions(_ request: Sessions.ListSessionsRequest, context: ServerCallContext) async throws
        -> Sessions.ListSessionsResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let statuses: [Int16]
        switch request.status {
        case .unspecified: statuses = [1, 2, 3]
        case .open: statuses = [1]
        case .matched: statuses = [2]
        case .closed: statuses = [2, 3]
        default: throw SessionError.invalidStatus
        }
        let (pageSize, cursor) = try DiscoveryService.page(request.pageSize, request.pageToken)
        return try await pool.withConnection { connection in
            let ids = try await store.list(of: account, app: caller.app, statuses: statuses, after: cursor, limit: pageSize + 1,
                                           on: connection)
            let page = ids.prefix(pageSize)
            var response = Sessions.ListSessionsResponse()
            for entry in page { response.sessions.append(try await loaded(entry.id, on: connection)) }
            if ids.count > pageSize, let last = page.last {
                response.nextPageToken = PageCursor(microseconds: last.updatedAt, id: last.id).token
            }
            return response
        }
    }

    func watchSession(_ request: Sessions.WatchSessionRequest, writer: ResponseWriter<Sessions.GroupSession>,
                      context: ServerCallContext) async throws {
        let (caller, id) = try Self.sessionCall(request.sessionID, context)
        let account = try caller.accountUUID()
        // A subscription: a draining server ends it at once, and the app watches again elsewhere.
        context.endWhenServerDrains()
        // Events from just before the first read on: none is missed between the two.
        let (first, start) = try await pool.withConnection { connection in
            let start = try await events.outbox.cursor(before: Int64(Date().timeIntervalSince1970 * 1_000_000) - 1_000_000,
                                                       on: connection)
            return (try await participantView(id, account: account, app: caller.app, on: connection), start)
        }
        try await writer.write(first)
        guard first.status == .open else { return }
        var watch = Events.WatchEventsRequest()
        watch.afterCursor = start
        watch.types = Self.eventTypes
        do {
            try await events.follow(watch) { event in
                guard event.aggregateID == first.sessionID else { return }
                let session = try await pool.withConnection { try await loaded(id, on: $0) }
                try await writer.write(session)
                if session.status != .open { throw SessionEnded() }
            }
        } catch is SessionEnded {
            return
        }
    }

    private struct SessionEnded: Error {}

    private static func sessionCall(_ sessionID: String, _ context: ServerCallContext) throws -> (AuthenticatedAccount, UUID) {
        let caller = try context.requireAccount()
        guard let id = UUID(uuidString: sessionID) else { throw SessionError.invalidSessionID }
        return (caller, id)
    }

    private func participantView(_ id: UUID, account: UUID, app: String, on connection: Connection) async throws
        -> Sessions.GroupSession {
        guard let session = try await store.load(id, app: app, on: connection),
              session.participants.contains(where: { $0.accountID == account.uuidString.lowercased() }) else {
            throw SessionError.sessionNotFound
        }
        return session
    }

    private func loaded(_ id: UUID, on connection: Connection) async throws -> Sessions.GroupSession {
        guard let session = try await store.load(id, on: connection) else { throw SessionError.sessionNotFound }
        return session
    }
}
