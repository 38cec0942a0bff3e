import Contracts
import Foundation
import RPC
import Synchronization
import Wire

/// A server for the Identity methods added after the first slice (Apple/Google and phone
/// sign-in, linking, deletion), the Devices methods, and RefreshSession, whose failures one
/// script decides: for checking which calls the client sends again, refreshes, or sends once.
/// Answers that the script lets through are canned; every call is recorded.
final class ScriptedMethodsService: RPCService {
    /// Throws the error the method should fail with, or returns to let it answer.
    typealias Script = @Sendable (_ method: String, _ attempt: Int) throws -> Void

    private let script: Script
    private let log = Mutex<[ScriptedIdentityService.Call]>([])

    /// The name health reports; the routes are added for both services whatever it is.
    var serviceName: String { DevicesClient.serviceName }

    init(_ script: @escaping Script = { _, _ in }) {
        self.script = script
    }

    /// Every call so far, in arrival order.
    var calls: [ScriptedIdentityService.Call] { log.withLock { $0 } }

    /// The methods called so far, in arrival order.
    var methods: [String] { calls.map(\.method) }

    func register(in router: inout RPCRouter) {
        let session: @Sendable () -> Identity.AuthSession = { ScriptedIdentityService.session(access: "s1", refresh: "t1") }
        let account: @Sendable () -> Identity.Account = { ScriptedIdentityService.account }
        let identity = IdentityClient.serviceName
        answer(&router, identity, "SignInWithProvider", Identity.SignInWithProviderRequest.self, session)
        answer(&router, identity, "StartPhoneSignIn", Identity.StartPhoneSignInRequest.self) {
            Identity.StartPhoneSignInResponse()
        }
        answer(&router, identity, "VerifyPhoneCode", Identity.VerifyPhoneCodeRequest.self, session)
        answer(&router, identity, "LinkProvider", Identity.LinkProviderRequest.self, account)
        answer(&router, identity, "LinkEmail", Identity.LinkEmailRequest.self, account)
        answer(&router, identity, "LinkPhone", Identity.LinkPhoneRequest.self, account)
        answer(&router, identity, "DeleteAccount", Identity.DeleteAccountRequest.self) {
            Identity.DeleteAccountResponse(deletedAt: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
        }
        answer(&router, identity, "RefreshSession", Identity.RefreshSessionRequest.self) {
            ScriptedIdentityService.session(access: "a2", refresh: "r2")
        }
        let devices = DevicesClient.serviceName
        answer(&router, devices, "RegisterPushToken", Devices.RegisterPushTokenRequest.self) { Devices.PushToken() }
        answer(&router, devices, "RefreshPushToken", Devices.RefreshPushTokenRequest.self) { Devices.PushToken() }
        answer(&router, devices, "UnregisterPushToken", Devices.UnregisterPushTokenRequest.self) {
            Devices.UnregisterPushTokenResponse(removed: true)
        }
        answer(&router, devices, "ListMyPushTokens", Devices.ListMyPushTokensRequest.self) {
            Devices.ListMyPushTokensResponse()
        }
    }

    private func answer<Request: ProtoMessage, Response: ProtoMessage>(
        _ router: inout RPCRouter, _ service: String, _ method: String, _: Request.Type,
        _ response: @escaping @Sendable () -> Response
    ) {
        router.unary(service, method) { [self] (_: Request, context) in
            let bearer = context.requestMetadata[string: "authorization"].map { String($0.dropFirst("Bearer ".count)) }
            let attempt = log.withLock { log in
                log.append(ScriptedIdentityService.Call(method: method, bearer: bearer))
                return log.filter { $0.method == method }.count
            }
            try script(method, attempt)
            return response()
        }
    }
}
