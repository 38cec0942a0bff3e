public import Contracts
public import RPC

extension IdentityAPI {
    /// Creates an account with an email and password, referred by a member's code (ÉLITE), and
    /// signs in to it: the account starts active instead of waitlisted, or is not created at
    /// all when the code cannot be used (`REFERRAL_CODE_USED`, `REFERRAL_CODE_EXPIRED`,
    /// `REFERRAL_CODE_NOT_FOUND`, `REFERRALS_NOT_OFFERED`…). Otherwise as
    /// `signUpWithEmail(_:password:deviceName:deadline:)`.
    public func signUpWithEmail(_ email: String, password: String, referralCode: String, deviceName: String? = nil,
                                deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        var request = Identity.SignUpWithEmailRequest(app: runner.configuration.app, email: email, password: password,
                                                      deviceName: deviceName ?? runner.configuration.deviceName)
        request.referralCode = referralCode
        let stub = IdentityClient(client: runner.rpc)
        let response = try await runner.run(Methods.signUpWithEmail, deadline: deadline) { [request] options in
            try await stub.signUpWithEmail(request, options: options)
        }
        do {
            try runner.sessions.signedIn(response)
        } catch {
            throw GatewayError.gateway(error)
        }
        return response.account ?? Identity.Account()
    }
}
