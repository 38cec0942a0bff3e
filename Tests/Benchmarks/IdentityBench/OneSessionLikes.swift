import Contracts
import RPC

/// `LikeOption` contended on one group session. The product's quorum is at most 5, so "64
/// participants on one session" is read as the five participants of a quorum-5 session on 64
/// concurrent callers (12 or 13 devices each), every like taking the session's row lock.
///
/// Timed runs: participant p likes, over and over, every option of the deck except those at
/// positions ≡ p (mod 5), so no option ever has all five likes and every like takes the full path
/// (lock, participant check, idempotent insert, count) without ending the session. Afterwards,
/// `finish` sends the missing likes from all 64 callers at once: each completes an option, so
/// many options reach the quorum in the same instant, and exactly one may win.
actor OneSessionLikes {
    struct Session: Sendable {
        var id: String
        /// The five participants' access tokens, creator first.
        var tokens: [String]
        /// The deck, in the creator's order.
        var optionIDs: [String]
    }

    static let quorum = 5
    static let callers = 64

    private var session: Task<Session, any Error>?

    /// The shared session, created (five anonymous accounts, one quorum-5 session) by the first caller.
    func session(identity: IdentityClient, sessions: GroupSessionsClient, app: String) async throws -> Session {
        if let session { return try await session.value }
        let task = Task { try await Self.create(identity: identity, sessions: sessions, app: app) }
        session = task
        return try await task.value
    }

    private static func create(identity: IdentityClient, sessions: GroupSessionsClient, app: String) async throws -> Session {
        var tokens: [String] = []
        for _ in 0..<quorum { tokens.append(try await identity.signInAnonymously(.init(app: app, deviceName: "bench")).accessToken) }
        let created = try await sessions.createSession(.init(categoryID: "cuisines", quorum: Int32(quorum)), options: .bearer(tokens[0]))
        for token in tokens.dropFirst() { _ = try await sessions.joinSession(.init(inviteCode: created.inviteCode), options: .bearer(token)) }
        let deck = try await sessions.getDeck(.init(sessionID: created.sessionID), options: .bearer(tokens[0]))
        return Session(id: created.sessionID, tokens: tokens, optionIDs: deck.options.map(\.optionID))
    }

    /// Stream `stream`'s likes in the timed runs: its participant's share of the deck, from its own start.
    func workload(discovery: [RPCClient], app: String) -> Workload {
        Workload("group like (one session, quorum 5)") { identity, stream in
            let client = GroupSessionsClient(client: discovery[stream % discovery.count])
            let session = try await self.session(identity: identity, sessions: client, app: app)
            let participant = stream % Self.quorum
            let mine = session.optionIDs.indices.filter { $0 % Self.quorum != participant }.map { session.optionIDs[$0] }
            let start = (stream / Self.quorum) % mine.count
            return LikeChain(client: client, options: .bearer(session.tokens[participant]), sessionID: session.id,
                             optionIDs: Array(mine[start...] + mine[..<start]))
        }
    }

    /// The race for the win, once the timed runs are over; nil when they never made the session.
    func finish(discovery: [RPCClient]) async -> String? {
        guard let session = try? await session?.value else { return nil }
        let responses = await withTaskGroup(of: Result<Sessions.LikeOptionResponse, any Error>.self) { group in
            for caller in 0..<Self.callers {
                let participant = caller % Self.quorum
                let missing = session.optionIDs.indices.filter { $0 % Self.quorum == participant }.map { session.optionIDs[$0] }
                let option = missing[(caller / Self.quorum) % missing.count]
                let client = GroupSessionsClient(client: discovery[caller % discovery.count])
                group.addTask {
                    await Result {
                        try await client.likeOption(.init(sessionID: session.id, optionID: option),
                                                    options: .bearer(session.tokens[participant], timeout: .seconds(30)))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let answered = responses.compactMap { try? $0.get() }
        let winners = Set(answered.filter(\.matchFound).compactMap { $0.matchedOption?.optionID })
        let matched = answered.filter(\.matchFound).count
        let verdict = answered.count == Self.callers && matched == Self.callers && winners.count == 1 ? "passed" : "FAILED"
        return "one session: \(Self.callers) callers sending the last like of \(session.optionIDs.count) options at once: "
            + "\(answered.count) answered, \(matched) with match_found, \(winners.count) winner(s) \(winners.sorted()): \(verdict)"
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
