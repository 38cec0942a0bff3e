import Auth
import Contracts
import Foundation
import Logging
import RPC
import Runtime

/// "Another service" for the revocation tests: an RPC server of its own in the test process
/// that knows identity only as every other service does, by its signing keys
/// (`GetSigningKeys`) and its events (`WatchEvents` with a service credential). It answers
/// `GetAccount` with the claims of the caller's token, so a test sees which claims passed.
final class RevocationProbe: Sendable {
    let port: Int
    let list: RevocationList
    private let server: RPCServer
    private let identity: RPCClient
    private let feed: Task<Void, Never>

    private init(port: Int, list: RevocationList, server: RPCServer, identity: RPCClient, feed: Task<Void, Never>) {
        self.port = port
        self.list = list
        self.server = server
        self.identity = identity
        self.feed = feed
    }

    /// Starts the probe against the identity executable listening on `identityPort`.
    static func start(identityPort: Int, credential: ServiceCredential) throws -> RevocationProbe {
        let identity = RPCClient(host: "127.0.0.1", port: identityPort)
        let verifier = AccessTokenVerifier(configuration: .init(apps: ["elite", "firstdate", "swivo", "unseen", "momento"]),
                                           source: IdentitySigningKeySource(client: IdentityClient(client: identity)))
        let list = RevocationList()
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [ClaimsEcho()],
                                   interceptors: [AuthInterceptor(verifier: verifier, publicMethods: [], revocations: list,
                                                                  // Open before admission, as on identity.
                                                                  openBeforeAdmission: ["/\(IdentityClient.serviceName)/GetAccount"])])
        let port = try server.start()
        let feed = RevocationFeed.remote(list: list, client: identity, credential: credential,
                                         logger: Logger(label: "revocation-probe"))
        let task = Task { await feed.run() }
        return RevocationProbe(port: port, list: list, server: server, identity: identity, feed: task)
    }

    /// The claims the probe saw in `token`, or the error it refused it with.
    func claims(_ token: String) async -> Result<Identity.Account, RPCError> {
        let client = RPCClient(host: "127.0.0.1", port: port)
        defer { client.close() }
        do {
            return .success(try await IdentityClient(client: client).getAccount(options: .bearer(token)))
        } catch let error as RPCError {
            return .failure(error)
        } catch {
            return .failure(RPCError(code: .unknown, message: "\(error)"))
        }
    }

    /// Polls until the probe refuses `token` with `reason` or `limit` passes; returns how long
    /// that took, nil if it never did.
    func timeUntilRefused(_ token: String, reason: String, limit: Duration = .seconds(1)) async -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < limit {
            if case .failure(let error) = await claims(token), error.reason == reason { return clock.now - start }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    func stop() async {
        feed.cancel()
        await server.shutdown(gracePeriod: .milliseconds(200))
        identity.close()
    }
}

/// `GetAccount` answered from the verified token alone.
private struct ClaimsEcho: RPCService {
    var serviceName: String { IdentityClient.serviceName }

    func register(in router: inout RPCRouter) {
        router.unary(serviceName, "GetAccount") { (_: Identity.GetAccountRequest, context) in
            let caller = try context.requireAccount()
            var account = Identity.Account()
            account.id = caller.accountID
            account.app = caller.app
            account.role = caller.role
            account.tier = caller.tier
            account.membershipStatus = caller.membershipStatus
            return account
        }
    }
}
