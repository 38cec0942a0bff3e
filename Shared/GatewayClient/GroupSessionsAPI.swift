public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// Swivo's group sessions (`rendezvous.discovery.v1.GroupSessions`).
    public var groupSessions: GroupSessionsAPI { GroupSessionsAPI(runner: runner) }
}

/// Group sessions as an app calls them, as the signed-in account. Errors carry Discovery's
/// reasons (`error.discoveryReason`): `SESSION_FULL`, `INVALID_JOIN_CODE`, `SESSION_CLOSED`...
public struct GroupSessionsAPI: Sendable {
    let runner: CallRunner

    /// Every GroupSessions method the client calls, with its retry and authentication rules.
    enum Methods {
        static let listCategories = GatewayMethod("GroupSessions/ListCategories", .read, .session)
        /// Not retried: a lost answer would leave a second session behind.
        static let createSession = GatewayMethod("GroupSessions/CreateSession", .write, .session)
        /// Joining again is a no-op.
        static let joinSession = GatewayMethod("GroupSessions/JoinSession", .idempotentWrite, .session)
        static let getSession = GatewayMethod("GroupSessions/GetSession", .read, .session)
        static let getDeck = GatewayMethod("GroupSessions/GetDeck", .read, .session)
        /// A like is recorded once however often it is sent.
        static let likeOption = GatewayMethod("GroupSessions/LikeOption", .idempotentWrite, .session)
        static let closeSession = GatewayMethod("GroupSessions/CloseSession", .idempotentWrite, .session)
        static let listSessions = GatewayMethod("GroupSessions/ListSessions", .read, .session)
    }

    private var stub: GroupSessionsClient { GroupSessionsClient(client: runner.transport) }

    public func categories(deadline: Duration? = nil) async throws(GatewayError) -> [Sessions.Category] {
        try await runner.run(Methods.listCategories, deadline: deadline) { [stub] options in
            try await stub.listCategories(.init(), options: options).categories
        }
    }

    /// Starts a session on `categoryID` with `quorum` (2-5); the caller is its first participant.
    public func create(categoryID: String, quorum: Int32 = 2,
                       deadline: Duration? = nil) async throws(GatewayError) -> Sessions.GroupSession {
        let request = Sessions.CreateSessionRequest(categoryID: categoryID, quorum: quorum)
        return try await runner.run(Methods.createSession, deadline: deadline) { [stub] options in
            try await stub.createSession(request, options: options)
        }
    }

    /// Joins by invite code; `readOnly` when the session had already matched or closed.
    public func join(inviteCode: String, deadline: Duration? = nil) async throws(GatewayError) -> Sessions.JoinSessionResponse {
        let request = Sessions.JoinSessionRequest(inviteCode: inviteCode)
        return try await runner.run(Methods.joinSession, deadline: deadline) { [stub] options in
            try await stub.joinSession(request, options: options)
        }
    }

    public func session(_ sessionID: String, deadline: Duration? = nil) async throws(GatewayError) -> Sessions.GroupSession {
        let request = Sessions.GetSessionRequest(sessionID: sessionID)
        return try await runner.run(Methods.getSession, deadline: deadline) { [stub] options in
            try await stub.getSession(request, options: options)
        }
    }

    /// The session's options in the caller's own order, and those it already liked.
    public func deck(_ sessionID: String, deadline: Duration? = nil) async throws(GatewayError) -> Sessions.Deck {
        let request = Sessions.GetDeckRequest(sessionID: sessionID)
        return try await runner.run(Methods.getDeck, deadline: deadline) { [stub] options in
            try await stub.getDeck(request, options: options)
        }
    }

    /// Likes an option; `matchFound` with the winner once the session has matched.
    public func like(optionID: String, in sessionID: String,
                     deadline: Duration? = nil) async throws(GatewayError) -> Sessions.LikeOptionResponse {
        let request = Sessions.LikeOptionRequest(sessionID: sessionID, optionID: optionID)
        return try await runner.run(Methods.likeOption, deadline: deadline) { [stub] options in
            try await stub.likeOption(request, options: options)
        }
    }

    /// Ends an open session without a match (creator only).
    public func close(_ sessionID: String, deadline: Duration? = nil) async throws(GatewayError) -> Sessions.GroupSession {
        let request = Sessions.CloseSessionRequest(sessionID: sessionID)
        return try await runner.run(Methods.closeSession, deadline: deadline) { [stub] options in
            try await stub.closeSession(request, options: options)
        }
    }

    /// The caller's sessions of `status` (OPEN, or CLOSED for matched and closed ones).
    public func list(_ status: Sessions.SessionStatus, pageSize: Int32 = 0, pageToken: String = "",
                     deadline: Duration? = nil) async throws(GatewayError) -> Sessions.ListSessionsResponse {
        let request = Sessions.ListSessionsRequest(status: status, pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.listSessions, deadline: deadline) { [stub] options in
            try await stub.listSessions(request, options: options)
        }
    }

    /// The session now, then on every join, match or close, until it ends (the last state is
    /// MATCHED or CLOSED) or the task is cancelled. A stream that breaks — the connection drops,
    /// discovery restarts — is opened again after the retry policy's backoff (a refused access
    /// token is refreshed once), and every state is delivered once: a match that happened while
    /// the stream was down arrives when it is back, and nothing already seen is repeated
    /// (`SessionWatch`). Ends with an error only for what a retry cannot fix, such as
    /// NOT_FOUND `SESSION_NOT_FOUND` or a signed-out session.
    public func watch(_ sessionID: String) -> AsyncThrowingStream<Sessions.GroupSession, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Sessions.GroupSession, any Error>.makeStream()
        let task = Task { [runner] in
            var watch = SessionWatch(runner: runner, sessionID: sessionID)
            do {
                try await watch.run { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: RPCError.gateway(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
