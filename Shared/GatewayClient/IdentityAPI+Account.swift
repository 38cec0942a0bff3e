public import ContractTypes
public import Foundation

extension IdentityAPI {
    /// Adds an email and password to the signed-in account, which can then sign in with them
    /// on other devices (an anonymous account stops being anonymous; its id and data stay).
    /// Fails with `INVALID_EMAIL`, `WEAK_PASSWORD`, ALREADY_EXISTS `EMAIL_TAKEN` or `ALREADY_LINKED`.
    public func linkEmail(_ email: String, password: String, deadline: Duration? = nil) async throws(GatewayError)
        -> Identity.Account {
        let request = Identity.LinkEmailRequest(email: email, password: password)
        return try await runner.run(Methods.linkEmail, deadline: deadline) { [stub] options in
            try await stub.linkEmail(request, options: options)
        }
    }

    /// Deletes the signed-in account for good, with everything Identity holds for it, and
    /// clears the stored session; returns when the server deleted it. Sent once: if the answer
    /// is lost the session stays stored, and the next call finds it gone (`isSignedOut`).
    @discardableResult
    public func deleteAccount(deadline: Duration? = nil) async throws(GatewayError) -> Date {
        let response = try await runner.run(Methods.deleteAccount, deadline: deadline) { [stub] options in
            try await stub.deleteAccount(options: options)
        }
        do {
            try runner.sessions.signedOut()
        } catch {
            throw GatewayError.gateway(error)
        }
        return response.deletedAt.map { Date($0) } ?? Date()
    }
}
