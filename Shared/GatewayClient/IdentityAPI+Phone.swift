public import ContractTypes

extension IdentityAPI {
    /// Sends a 6-digit code by SMS to `phone` (E.164, e.g. "+14155550123"; spaces, dots,
    /// dashes and parentheses are ignored). Sent once, never retried: a failure may still have
    /// sent the SMS. The response says when the code expires and when another may be asked
    /// for; asking sooner fails with RESOURCE_EXHAUSTED `CODE_SEND_THROTTLED` (details
    /// `retry_after_seconds`).
    public func startPhoneSignIn(_ phone: String, deadline: Duration? = nil) async throws(GatewayError)
        -> Identity.StartPhoneSignInResponse {
        let request = Identity.StartPhoneSignInRequest(app: app, phone: phone)
        return try await runner.run(Methods.startPhoneSignIn, deadline: deadline) { [stub] options in
            try await stub.startPhoneSignIn(request, options: options)
        }
    }

    /// Signs in with the code `startPhoneSignIn` sent, creating the account on the number's
    /// first sign-in, and saves the session. Fails with UNAUTHENTICATED `INVALID_CODE` (details
    /// `attempts_remaining`) or `CODE_EXPIRED`, RESOURCE_EXHAUSTED `CODE_ATTEMPTS_EXHAUSTED`
    /// after five wrong codes, FAILED_PRECONDITION `NO_ACTIVE_CODE`.
    ///
    /// `referralCode`: a member's code (ÉLITE) redeemed when this call creates the account, which
    /// then starts active; a code that cannot be used fails the call and creates nothing
    /// (`REFERRAL_CODE_USED`, `REFERRAL_CODE_EXPIRED`, `REFERRAL_CODE_NOT_FOUND`, `REFERRALS_NOT_OFFERED`…).
    public func verifyPhoneCode(_ code: String, phone: String, referralCode: String = "", deviceName: String? = nil,
                                deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        var request = Identity.VerifyPhoneCodeRequest(app: app, phone: phone, code: code, deviceName: device(deviceName))
        request.referralCode = referralCode
        return try await startSession(Methods.verifyPhoneCode, deadline) { [stub, request] options in
            try await stub.verifyPhoneCode(request, options: options)
        }
    }

    /// Adds `phone` to the signed-in account, proven with a code `startPhoneSignIn` sent to it.
    /// Fails with ALREADY_EXISTS `PHONE_TAKEN` or `ALREADY_LINKED`, or `verifyPhoneCode`'s code
    /// reasons; a wrong code is not mistaken for a refused session.
    public func linkPhone(_ phone: String, code: String, deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        let request = Identity.LinkPhoneRequest(phone: phone, code: code)
        return try await runner.run(Methods.linkPhone, deadline: deadline) { [stub] options in
            try await stub.linkPhone(request, options: options)
        }
    }
}
