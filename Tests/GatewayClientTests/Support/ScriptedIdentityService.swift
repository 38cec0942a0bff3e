import Contracts
import Foundation
import GatewayClient
import RPC
import Synchronization

/// An Identity server whose answers each test scripts, for behaviour the real service cannot be
/// made to show on demand (UNAVAILABLE twice, a slow answer, a refused refresh). It records
/// every call: method, attempt number, the bearer token and the refresh token presented.
final class ScriptedIdentityService: RPCService {
    /// One call as the server saw it.
    struct Call: Sendable, Equatable {
        var method: String
        var bearer: String?
        var refreshToken: String?
        /// The call's `traceparent` header.
        var traceparent: String?
    }

    /// The behaviour of one method: given how many calls of it came before (1 for the first)
    /// and the bearer token, answer or throw.
    typealias Script<Response> = @Sendable (_ attempt: Int, _ bearer: String?) async throws -> Response

    /// The scripts a test replaces; nil keeps the default (a successful answer).
    struct Scripts {
        var getAccount: Script<Identity.Account>?
        var listSessions: Script<Identity.ListSessionsResponse>?
        var signInAnonymously: Script<Identity.AuthSession>?
        var signOut: Script<Identity.SignOutResponse>?
        var refreshSession: Script<Identity.AuthSession>?
    }

    private let getAccount: Script<Identity.Account>
    private let listSessions: Script<Identity.ListSessionsResponse>
    private let signInAnonymously: Script<Identity.AuthSession>
    private let signOut: Script<Identity.SignOutResponse>
    private let refreshSession: Script<Identity.AuthSession>
    private let log = Mutex<[Call]>([])

    var serviceName: String { IdentityClient.serviceName }

    /// A server answering successfully, but for the scripts `configure` sets. By default the
    /// n-th refresh returns access token `a<n+1>` and refresh token `r<n+1>`.
    init(_ configure: (inout Scripts) -> Void = { _ in }) {
        var scripts = Scripts()
        configure(&scripts)
        getAccount = scripts.getAccount ?? { _, _ in ScriptedIdentityService.account }
        listSessions = scripts.listSessions ?? { _, _ in Identity.ListSessionsResponse() }
        signInAnonymously = scripts.signInAnonymously ?? { _, _ in ScriptedIdentityService.session(access: "a1", refresh: "r1") }
        signOut = scripts.signOut ?? { _, _ in Identity.SignOutResponse(revokedSessions: 1) }
        refreshSession = scripts.refreshSession ?? { attempt, _ in
            ScriptedIdentityService.session(access: "a\(attempt + 1)", refresh: "r\(attempt + 1)")
        }
    }

    /// Every call so far, in arrival order.
    var calls: [Call] { log.withLock { $0 } }

    /// How many calls of `method` arrived.
    func count(_ method: String) -> Int { calls.filter { $0.method == method }.count }

    func register(in router: inout RPCRouter) {
        router.unary(serviceName, "GetAccount") { [self] (_: Identity.GetAccountRequest, context) in
            let (attempt, bearer) = record("GetAccount", context)
            return try await getAccount(attempt, bearer)
        }
        router.unary(serviceName, "ListSessions") { [self] (_: Identity.ListSessionsRequest, context) in
            let (attempt, bearer) = record("ListSessions", context)
            return try await listSessions(attempt, bearer)
        }
        router.unary(serviceName, "SignInAnonymously") { [self] (_: Identity.SignInAnonymouslyRequest, context) in
            let (attempt, bearer) = record("SignInAnonymously", context)
            return try await signInAnonymously(attempt, bearer)
        }
        router.unary(serviceName, "SignOut") { [self] (_: Identity.SignOutRequest, context) in
            let (attempt, bearer) = record("SignOut", context)
            return try await signOut(attempt, bearer)
        }
        router.unary(serviceName, "RefreshSession") { [self] (request: Identity.RefreshSessionRequest, context) in
            let (attempt, bearer) = record("RefreshSession", context, refreshToken: request.refreshToken)
            return try await refreshSession(attempt, bearer)
        }
    }

    private func record(_ method: String, _ context: ServerCallContext, refreshToken: String? = nil) -> (Int, String?) {
        let bearer = context.requestMetadata[string: "authorization"].map { String($0.dropFirst("Bearer ".count)) }
        return log.withLock { log in
            log.append(Call(method: method, bearer: bearer, refreshToken: refreshToken,
                            traceparent: context.requestMetadata[string: "traceparent"]))
            return (log.filter { $0.method == method }.count, bearer)
        }
    }

    // MARK: Canned answers

    static let account: Identity.Account = {
        var account = Identity.Account()
        account.id = "00000000-0000-4000-8000-000000000001"
        account.app = "swivo"
        account.username = "anon-test"
        account.anonymous = true
        return account
    }()

    /// A session with these tokens, the access token valid for `lifetime` seconds.
    static func session(access: String, refresh: String, lifetime: Int64 = 900) -> Identity.AuthSession {
        let now = Int64(Date().timeIntervalSince1970)
        var session = Identity.AuthSession()
        session.account = account
        session.sessionID = "00000000-0000-4000-8000-0000000000aa"
        session.accessToken = access
        session.accessTokenExpiresAt = Timestamp(seconds: now + lifetime)
        session.refreshToken = refresh
        session.refreshTokenExpiresAt = Timestamp(seconds: now + 30 * 86400)
        return session
    }

    /// The session a store would hold after `session(access:refresh:lifetime:)`.
    static func stored(access: String, refresh: String, lifetime: Int64 = 900) -> StoredSession {
        // Safe: `session` fills every field StoredSession needs.
        StoredSession(session(access: access, refresh: refresh, lifetime: lifetime))!
    }

    static func unauthenticated(_ reason: String = "TOKEN_EXPIRED") -> RPCError {
        RPCError(code: .unauthenticated, message: "sign in again", reason: reason)
    }

    static let unavailable = RPCError(code: .unavailable, message: "try again")
}
