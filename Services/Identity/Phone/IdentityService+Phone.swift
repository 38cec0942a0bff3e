import Auth
import Contracts
import Foundation
import Postgres

/// Phone one-time code sign-in, and linking a verified number to an existing account.
extension IdentityService {
    var phoneCodes: PhoneCodeStore {
        PhoneCodeStore(settings: settings.phoneCodes, codes: OneTimeCode(keyEncryptionKey: settings.keyEncryptionKey))
    }

    func startPhoneSignIn(_ request: Identity.StartPhoneSignInRequest) async throws -> Identity.StartPhoneSignInResponse {
        let policy = try settings.apps.policy(for: request.app)
        guard policy.allows(.phone) else { throw IdentityError.signInMethodNotAllowed }
        let phone = try PhoneNumber(request.phone)
        let issue = try await pool.withTransaction { connection in
            try await phoneCodes.purgeStale(on: connection)
            return try await phoneCodes.issue(app: policy.id, phone: phone, on: connection)
        }
        switch issue {
        case .throttled(let retryAfter):
            throw AccountError.codeSendThrottled(retryAfterSeconds: retryAfter)
        case .issued(let code, let expiresAt):
            // Sent after the commit: a sender failure leaves a stored code nobody received,
            // which the next request (after the resend interval) replaces.
            do {
                try await settings.oneTimeCodeSender.send(code: code, to: phone, app: policy.id)
            } catch {
                throw AccountError.codeDeliveryFailed
            }
            return Identity.StartPhoneSignInResponse(phone: phone.value, expiresAt: Timestamp(expiresAt),
                                                     resendAfterSeconds: Int32(clamping: settings.phoneCodes.resendInterval))
        }
    }

    func verifyPhoneCode(_ request: Identity.VerifyPhoneCodeRequest) async throws -> Identity.AuthSession {
        let policy = try settings.apps.policy(for: request.app)
        guard policy.allows(.phone) else { throw IdentityError.signInMethodNotAllowed }
        let phone = try PhoneNumber(request.phone)
        let outcome: Result<Identity.AuthSession, AccountError> = try await pool.withTransaction { connection in
            if let rejection = try await phoneCodes.consume(app: policy.id, phone: phone, code: request.code,
                                                            on: connection) {
                return .failure(rejection)
            }
            if let accountID = try await PhoneCredentials.account(app: policy.id, phone: phone, on: connection) {
                return .success(try await startSession(try await existingAccount(accountID, app: policy.id, on: connection),
                                                       deviceName: request.deviceName, on: connection))
            }
            // The code row's lock serialises every use of this number, so no one else can be
            // creating its account now.
            let created = try await AccountStore.create(policy: policy, anonymous: false, on: connection)
            let accountID = try Self.uuid(created.id)
            guard try await PhoneCredentials.insert(accountID: accountID, app: policy.id, phone: phone, on: connection) else {
                throw AccountError.phoneTaken
            }
            let account = try await existingAccount(accountID, app: policy.id, on: connection)
            return .success(try await openAccount(account, referralCode: request.referralCode, policy: policy,
                                                   deviceName: request.deviceName, on: connection))
        }
        return try outcome.get()
    }

    func linkPhone(_ request: Identity.LinkPhoneRequest, caller: AuthenticatedAccount) async throws -> Identity.Account {
        let policy = try settings.apps.policy(for: caller.app)
        guard policy.allows(.phone) else { throw IdentityError.signInMethodNotAllowed }
        let phone = try PhoneNumber(request.phone)
        let accountID = try caller.accountUUID()
        let outcome: Result<Identity.Account, AccountError> = try await pool.withTransaction { connection in
            try await AccountStore.lock(accountID, app: policy.id, on: connection)
            if let rejection = try await phoneCodes.consume(app: policy.id, phone: phone, code: request.code,
                                                            on: connection) {
                return .failure(rejection)
            }
            if let owner = try await PhoneCredentials.account(app: policy.id, phone: phone, on: connection) {
                guard owner == accountID else { return .failure(.phoneTaken) }
                return .success(try await existingAccount(accountID, app: policy.id, on: connection))
            }
            guard try await PhoneCredentials.phone(of: accountID, on: connection) == nil else {
                return .failure(.alreadyLinked(method: SignInMethod.phone.rawValue))
            }
            guard try await PhoneCredentials.insert(accountID: accountID, app: policy.id, phone: phone, on: connection) else {
                return .failure(.phoneTaken)
            }
            try await AccountStore.markLinked(accountID, on: connection)
            return .success(try await existingAccount(accountID, app: policy.id, on: connection))
        }
        return try outcome.get()
    }
}
