import Auth
import Foundation

extension AuthenticatedAccount {
    /// The caller's account id; the token is ours, so one that is not a UUID means a forged
    /// or broken claim (UNAUTHENTICATED `ACCOUNT_NOT_FOUND`).
    func accountUUID() throws(IdentityError) -> UUID {
        guard let id = UUID(uuidString: accountID) else { throw .accountNotFound }
        return id
    }
}
