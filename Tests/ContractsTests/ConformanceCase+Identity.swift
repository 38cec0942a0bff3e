import Contracts
import Foundation
import Testing

/// Values of rendezvous.identity.v1 (proto-docs/rendezvous/identity/v1/identity.proto).
extension ConformanceCase {
    static let identity: [ConformanceCase] = {
        let package = "rendezvous.identity.v1."
        let created = Timestamp(seconds: 1_795_000_000, nanos: 5_000)
        let createdJSON = "2026-11-18T11:06:40.000005Z"

        var account = Identity.Account()
        account.id = "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b"
        account.app = "firstdate"
        account.username = "anon-7k3q"
        account.email = "ana@example.com"
        account.role = "viewer"
        account.tier = "free"
        account.membershipStatus = "active"
        account.anonymous = true
        account.createdAt = created
        let accountJSON = """
            {"id": "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b", "app": "firstdate", "username": "anon-7k3q",
             "email": "ana@example.com", "role": "viewer", "tier": "free", "membership_status": "active",
             "anonymous": true, "created_at": "\(createdJSON)"}
            """

        var session = Identity.AuthSession()
        session.account = account
        session.accessToken = "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"
        session.accessTokenExpiresAt = Timestamp(seconds: 1_795_000_900)
        session.refreshToken = "q0V3-_zZ"
        session.refreshTokenExpiresAt = Timestamp(seconds: 1_797_592_000)
        session.sessionID = "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"
        var emptyAccount = Identity.AuthSession()
        emptyAccount.account = Identity.Account()

        var listed = Identity.Session()
        listed.id = "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"
        listed.deviceName = unicodeText
        listed.createdAt = created
        listed.lastUsedAt = Timestamp(seconds: 1_795_000_100)
        listed.expiresAt = Timestamp(seconds: 1_797_592_000)
        listed.current = true
        let listedJSON = """
            {"id": "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e", "device_name": \(unicodeJSON),
             "created_at": "\(createdJSON)", "last_used_at": "2026-11-18T11:08:20Z",
             "expires_at": "2026-12-18T11:06:40Z", "current": true}
            """

        var key = Identity.SigningKey()
        key.kid = "k1"
        key.kty = "EC"
        key.crv = "P-256"
        key.alg = "ES256"
        key.use = "sig"
        key.x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
        key.y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
        let keyJSON = """
            {"kid": "k1", "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
            """
        var second = key
        second.kid = "k2"

        return [
            ConformanceCase("default", Identity.SignInAnonymouslyRequest(), proto: package + "SignInAnonymouslyRequest", json: "{}"),
            ConformanceCase("full", Identity.SignInAnonymouslyRequest(app: "swivo", deviceName: unicodeText),
                            proto: package + "SignInAnonymouslyRequest", json: #"{"app": "swivo", "device_name": \#(unicodeJSON)}"#),
            ConformanceCase("default", Identity.SignUpWithEmailRequest(), proto: package + "SignUpWithEmailRequest", json: "{}"),
            ConformanceCase("full", Identity.SignUpWithEmailRequest(app: "firstdate", email: "ana@example.com",
                                                                    password: "correct horse", deviceName: "Pixel"),
                            proto: package + "SignUpWithEmailRequest",
                            json: #"{"app": "firstdate", "email": "ana@example.com", "password": "correct horse", "device_name": "Pixel"}"#),
            ConformanceCase("referral", { var request = Identity.SignUpWithEmailRequest(app: "elite", email: "b@example.org",
                                                                                       password: "correct horse")
                                          request.referralCode = "K7M2QX"
                                          return request }(),
                            proto: package + "SignUpWithEmailRequest",
                            json: #"{"app": "elite", "email": "b@example.org", "password": "correct horse", "referral_code": "K7M2QX"}"#),
            ConformanceCase("default", Identity.SignInWithEmailRequest(), proto: package + "SignInWithEmailRequest", json: "{}"),
            ConformanceCase("full", Identity.SignInWithEmailRequest(app: "elite", email: "b@example.org",
                                                                    password: unicodeText, deviceName: "iPhone"),
                            proto: package + "SignInWithEmailRequest",
                            json: #"{"app": "elite", "email": "b@example.org", "password": \#(unicodeJSON), "device_name": "iPhone"}"#),
            ConformanceCase("default", Identity.RefreshSessionRequest(), proto: package + "RefreshSessionRequest", json: "{}"),
            ConformanceCase("token", Identity.RefreshSessionRequest(refreshToken: "q0V3-_zZ"),
                            proto: package + "RefreshSessionRequest", json: #"{"refresh_token": "q0V3-_zZ"}"#),
            ConformanceCase("default", Identity.AuthSession(), proto: package + "AuthSession", json: "{}"),
            ConformanceCase("emptyAccount", emptyAccount, proto: package + "AuthSession", json: #"{"account": {}}"#),
            ConformanceCase("full", session, proto: package + "AuthSession", json: """
                {"account": \(accountJSON), "access_token": "eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
                 "access_token_expires_at": "2026-11-18T11:21:40Z", "refresh_token": "q0V3-_zZ",
                 "refresh_token_expires_at": "2026-12-18T11:06:40Z", "session_id": "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"}
                """),
            ConformanceCase("identityDefault", Identity.Account(), proto: package + "Account", json: "{}"),
            ConformanceCase("identityFull", account, proto: package + "Account", json: accountJSON),
            ConformanceCase("default", Identity.SignOutRequest(), proto: package + "SignOutRequest", json: "{}"),
            ConformanceCase("full", Identity.SignOutRequest(sessionID: "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e", allSessions: true),
                            proto: package + "SignOutRequest",
                            json: #"{"session_id": "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e", "all_sessions": true}"#),
            ConformanceCase("default", Identity.SignOutResponse(), proto: package + "SignOutResponse", json: "{}"),
            ConformanceCase("count", Identity.SignOutResponse(revokedSessions: 3), proto: package + "SignOutResponse",
                            json: #"{"revoked_sessions": 3}"#),
            ConformanceCase("default", Identity.ListSessionsRequest(), proto: package + "ListSessionsRequest", json: "{}"),
            ConformanceCase("default", Identity.Session(), proto: package + "Session", json: "{}"),
            ConformanceCase("full", listed, proto: package + "Session", json: listedJSON),
            ConformanceCase("default", Identity.ListSessionsResponse(), proto: package + "ListSessionsResponse", json: "{}"),
            ConformanceCase("two", Identity.ListSessionsResponse(sessions: [listed, Identity.Session()]),
                            proto: package + "ListSessionsResponse", json: #"{"sessions": [\#(listedJSON), {}]}"#),
            ConformanceCase("default", Identity.GetAccountRequest(), proto: package + "GetAccountRequest", json: "{}"),
            ConformanceCase("default", Identity.GetSigningKeysRequest(), proto: package + "GetSigningKeysRequest", json: "{}"),
            ConformanceCase("default", Identity.SigningKey(), proto: package + "SigningKey", json: "{}"),
            ConformanceCase("full", key, proto: package + "SigningKey", json: keyJSON),
            ConformanceCase("default", Identity.SigningKeySet(), proto: package + "SigningKeySet", json: "{}"),
            ConformanceCase("twoKeys", Identity.SigningKeySet(keys: [key, second], maxAgeSeconds: 300),
                            proto: package + "SigningKeySet",
                            json: #"{"keys": [\#(keyJSON), \#(keyJSON.replacingOccurrences(of: "\"k1\"", with: "\"k2\""))], "max_age_seconds": 300}"#),
        ] + identityAccounts
    }()
}
