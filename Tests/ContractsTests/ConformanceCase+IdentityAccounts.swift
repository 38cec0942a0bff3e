import Contracts
import Testing

/// Values of rendezvous.identity.v1 for Apple/Google and phone sign-in, linking and deletion
/// (proto-docs/rendezvous/identity/v1/identity.proto).
extension ConformanceCase {
    static let identityAccounts: [ConformanceCase] = {
        let package = "rendezvous.identity.v1."
        let id = "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b"
        let deletedAt = Timestamp(seconds: 1_795_000_000, nanos: 5_000)
        let deletedAtJSON = "2026-11-18T11:06:40.000005Z"

        var account = Identity.Account()
        account.id = id
        account.app = "elite"
        account.phone = "+14155550123"
        account.signInMethods = ["apple", "phone"]
        let accountJSON = #"{"id": "\#(id)", "app": "elite", "phone": "+14155550123", "sign_in_methods": ["apple", "phone"]}"#
        var oneMethod = Identity.Account()
        oneMethod.signInMethods = [""]

        return [
            ConformanceCase("phoneAndMethods", account, proto: package + "Account", json: accountJSON),
            ConformanceCase("emptyMethod", oneMethod, proto: package + "Account", json: #"{"sign_in_methods": [""]}"#),
            ConformanceCase("default", Identity.SignInWithProviderRequest(), proto: package + "SignInWithProviderRequest",
                            json: "{}"),
            ConformanceCase("apple", Identity.SignInWithProviderRequest(app: "momento", provider: .apple, idToken: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln",
                                                                        rawNonce: "n-0S6_WzA2Mj", deviceName: unicodeText),
                            proto: package + "SignInWithProviderRequest", json: """
                                {"app": "momento", "provider": "IDENTITY_PROVIDER_APPLE", "id_token": "eyJhbGciOiJSUzI1NiJ9.e30.c2ln",
                                 "raw_nonce": "n-0S6_WzA2Mj", "device_name": \(unicodeJSON)}
                                """),
            ConformanceCase("google", Identity.SignInWithProviderRequest(app: "firstdate", provider: .google, idToken: "t", rawNonce: "n"),
                            proto: package + "SignInWithProviderRequest",
                            json: #"{"app": "firstdate", "provider": "IDENTITY_PROVIDER_GOOGLE", "id_token": "t", "raw_nonce": "n"}"#),
            ConformanceCase("referral", { var request = Identity.SignInWithProviderRequest(app: "elite", provider: .apple, idToken: "t",
                                                                                          rawNonce: "n")
                                          request.referralCode = "K7M2QX"
                                          return request }(),
                            proto: package + "SignInWithProviderRequest",
                            json: #"{"app": "elite", "provider": "IDENTITY_PROVIDER_APPLE", "id_token": "t", "raw_nonce": "n", "referral_code": "K7M2QX"}"#),
            ConformanceCase("unknownProvider", Identity.SignInWithProviderRequest(app: "elite", provider: .init(rawValue: 9), idToken: "",
                                                                                  rawNonce: ""),
                            proto: package + "SignInWithProviderRequest", json: #"{"app": "elite", "provider": 9}"#),
            ConformanceCase("default", Identity.StartPhoneSignInRequest(), proto: package + "StartPhoneSignInRequest", json: "{}"),
            ConformanceCase("full", Identity.StartPhoneSignInRequest(app: "elite", phone: "+1 (415) 555-0123"),
                            proto: package + "StartPhoneSignInRequest", json: #"{"app": "elite", "phone": "+1 (415) 555-0123"}"#),
            ConformanceCase("default", Identity.StartPhoneSignInResponse(), proto: package + "StartPhoneSignInResponse", json: "{}"),
            ConformanceCase("full", Identity.StartPhoneSignInResponse(phone: "+14155550123", expiresAt: deletedAt, resendAfterSeconds: 30),
                            proto: package + "StartPhoneSignInResponse",
                            json: #"{"phone": "+14155550123", "expires_at": "\#(deletedAtJSON)", "resend_after_seconds": 30}"#),
            ConformanceCase("default", Identity.VerifyPhoneCodeRequest(), proto: package + "VerifyPhoneCodeRequest", json: "{}"),
            ConformanceCase("full", Identity.VerifyPhoneCodeRequest(app: "elite", phone: "+14155550123", code: "012345", deviceName: "iPhone"),
                            proto: package + "VerifyPhoneCodeRequest",
                            json: #"{"app": "elite", "phone": "+14155550123", "code": "012345", "device_name": "iPhone"}"#),
            ConformanceCase("referral", { var request = Identity.VerifyPhoneCodeRequest(app: "elite", phone: "+14155550123", code: "012345")
                                          request.referralCode = "K7M2QX"
                                          return request }(),
                            proto: package + "VerifyPhoneCodeRequest",
                            json: #"{"app": "elite", "phone": "+14155550123", "code": "012345", "referral_code": "K7M2QX"}"#),
            ConformanceCase("default", Identity.LinkProviderRequest(), proto: package + "LinkProviderRequest", json: "{}"),
            ConformanceCase("full", Identity.LinkProviderRequest(provider: .google, idToken: "a.b.c", rawNonce: unicodeText),
                            proto: package + "LinkProviderRequest",
                            json: #"{"provider": "IDENTITY_PROVIDER_GOOGLE", "id_token": "a.b.c", "raw_nonce": \#(unicodeJSON)}"#),
            ConformanceCase("default", Identity.LinkEmailRequest(), proto: package + "LinkEmailRequest", json: "{}"),
            ConformanceCase("full", Identity.LinkEmailRequest(email: "ana@example.com", password: unicodeText),
                            proto: package + "LinkEmailRequest", json: #"{"email": "ana@example.com", "password": \#(unicodeJSON)}"#),
            ConformanceCase("default", Identity.LinkPhoneRequest(), proto: package + "LinkPhoneRequest", json: "{}"),
            ConformanceCase("full", Identity.LinkPhoneRequest(phone: "+442079460958", code: "999999"),
                            proto: package + "LinkPhoneRequest", json: #"{"phone": "+442079460958", "code": "999999"}"#),
            ConformanceCase("default", Identity.DeleteAccountRequest(), proto: package + "DeleteAccountRequest", json: "{}"),
            ConformanceCase("default", Identity.DeleteAccountResponse(), proto: package + "DeleteAccountResponse", json: "{}"),
            ConformanceCase("full", Identity.DeleteAccountResponse(deletedAt: deletedAt), proto: package + "DeleteAccountResponse",
                            json: #"{"deleted_at": "\#(deletedAtJSON)"}"#),
            ConformanceCase("default", Identity.AccountDeleted(), proto: package + "AccountDeleted", json: "{}"),
            ConformanceCase("full", Identity.AccountDeleted(accountID: id, app: "unseen", deletedAt: deletedAt),
                            proto: package + "AccountDeleted",
                            json: #"{"account_id": "\#(id)", "app": "unseen", "deleted_at": "\#(deletedAtJSON)"}"#),
            ConformanceCase("default", Identity.SessionsRevoked(), proto: package + "SessionsRevoked", json: "{}"),
            ConformanceCase("full", Identity.SessionsRevoked(accountID: id, app: "swivo", sessionIDs: [id, id.uppercased()],
                                                             reason: "signed_out", revokedAt: deletedAt, validUntil: deletedAt),
                            proto: package + "SessionsRevoked",
                            json: #"{"account_id": "\#(id)", "app": "swivo", "session_ids": ["\#(id)", "\#(id.uppercased())"], "reason": "signed_out", "revoked_at": "\#(deletedAtJSON)", "valid_until": "\#(deletedAtJSON)"}"#),
            ConformanceCase("default", Identity.AccountClaimsChanged(), proto: package + "AccountClaimsChanged", json: "{}"),
            ConformanceCase("full", Identity.AccountClaimsChanged(accountID: id, app: "elite", notBefore: deletedAt,
                                                                  validUntil: deletedAt, changed: "tier"),
                            proto: package + "AccountClaimsChanged",
                            json: #"{"account_id": "\#(id)", "app": "elite", "not_before": "\#(deletedAtJSON)", "valid_until": "\#(deletedAtJSON)", "changed": "tier"}"#),
        ]
    }()
}
