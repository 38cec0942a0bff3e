import Contracts
import Foundation
import Testing

/// Values of rendezvous.identity.v1 Devices and DevicesInternal
/// (proto-docs/rendezvous/identity/v1/devices.proto).
extension ConformanceCase {
    static let devices: [ConformanceCase] = {
        let package = "rendezvous.identity.v1."
        let apns = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
        let fcm = "cU5rQ2x:APA91bH-z_9Kq.x"

        var token = Devices.PushToken()
        token.token = apns
        token.platform = .apns
        token.environment = .sandbox
        token.deviceID = "6F1C2D3E-4F5A-6B7C-8D9E-0F1A2B3C4D5E"
        token.appVersion = "2.4.1 (318)"
        token.active = false
        token.inactiveReason = .tooManyDevices
        token.createdAt = Timestamp(seconds: 1_795_000_000, nanos: 5_000)
        token.lastSeenAt = Timestamp(seconds: 1_795_000_100)
        token.accountID = "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b"
        token.app = "swivo"
        let tokenJSON = """
            {"token": "\(apns)", "platform": "PUSH_PLATFORM_APNS", "environment": "PUSH_ENVIRONMENT_SANDBOX",
             "device_id": "6F1C2D3E-4F5A-6B7C-8D9E-0F1A2B3C4D5E", "app_version": "2.4.1 (318)",
             "inactive_reason": "PUSH_TOKEN_INACTIVE_REASON_TOO_MANY_DEVICES",
             "created_at": "2026-11-18T11:06:40.000005Z", "last_seen_at": "2026-11-18T11:08:20Z",
             "account_id": "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b", "app": "swivo"}
            """
        var android = Devices.PushToken()
        android.token = fcm
        android.platform = .fcm
        android.environment = .production
        android.active = true
        let androidJSON = #"""
            {"token": "\#(fcm)", "platform": "PUSH_PLATFORM_FCM", "environment": "PUSH_ENVIRONMENT_PRODUCTION", "active": true}
            """#
        var future = Devices.PushToken()
        future.platform = Devices.PushPlatform(rawValue: 7)
        future.environment = Devices.PushEnvironment(rawValue: 9)
        future.inactiveReason = Devices.PushTokenInactiveReason(rawValue: 11)

        return [
            ConformanceCase("default", Devices.PushToken(), proto: package + "PushToken", json: "{}"),
            ConformanceCase("full", token, proto: package + "PushToken", json: tokenJSON),
            ConformanceCase("fcm", android, proto: package + "PushToken", json: androidJSON),
            ConformanceCase("unknownEnums", future, proto: package + "PushToken",
                            json: #"{"platform": 7, "environment": 9, "inactive_reason": 11}"#),
            ConformanceCase("default", Devices.RegisterPushTokenRequest(), proto: package + "RegisterPushTokenRequest", json: "{}"),
            ConformanceCase("full", Devices.RegisterPushTokenRequest(token: apns, platform: .apns, environment: .production,
                                                                     deviceID: unicodeText, appVersion: "1.0"),
                            proto: package + "RegisterPushTokenRequest", json: """
                                {"token": "\(apns)", "platform": "PUSH_PLATFORM_APNS", "environment": "PUSH_ENVIRONMENT_PRODUCTION",
                                 "device_id": \(unicodeJSON), "app_version": "1.0"}
                                """),
            ConformanceCase("default", Devices.RefreshPushTokenRequest(), proto: package + "RefreshPushTokenRequest", json: "{}"),
            ConformanceCase("full", Devices.RefreshPushTokenRequest(oldToken: apns, newToken: apns.uppercased(), appVersion: "1.1"),
                            proto: package + "RefreshPushTokenRequest",
                            json: #"{"old_token": "\#(apns)", "new_token": "\#(apns.uppercased())", "app_version": "1.1"}"#),
            ConformanceCase("default", Devices.UnregisterPushTokenRequest(), proto: package + "UnregisterPushTokenRequest", json: "{}"),
            ConformanceCase("token", Devices.UnregisterPushTokenRequest(token: fcm), proto: package + "UnregisterPushTokenRequest",
                            json: #"{"token": "\#(fcm)"}"#),
            ConformanceCase("default", Devices.UnregisterPushTokenResponse(), proto: package + "UnregisterPushTokenResponse",
                            json: "{}"),
            ConformanceCase("removed", Devices.UnregisterPushTokenResponse(removed: true), proto: package + "UnregisterPushTokenResponse",
                            json: #"{"removed": true}"#),
            ConformanceCase("default", Devices.ListMyPushTokensRequest(), proto: package + "ListMyPushTokensRequest", json: "{}"),
            ConformanceCase("default", Devices.ListMyPushTokensResponse(), proto: package + "ListMyPushTokensResponse", json: "{}"),
            ConformanceCase("three", Devices.ListMyPushTokensResponse(tokens: [token, android, Devices.PushToken()]),
                            proto: package + "ListMyPushTokensResponse", json: #"{"tokens": [\#(tokenJSON), \#(androidJSON), {}]}"#),
            ConformanceCase("default", Devices.ListActivePushTokensRequest(), proto: package + "ListActivePushTokensRequest", json: "{}"),
            ConformanceCase("full", Devices.ListActivePushTokensRequest(app: "momento", accountIDs: [token.accountID, "", unicodeText]),
                            proto: package + "ListActivePushTokensRequest",
                            json: #"{"app": "momento", "account_ids": ["\#(token.accountID)", "", \#(unicodeJSON)]}"#),
            ConformanceCase("default", Devices.ListActivePushTokensResponse(), proto: package + "ListActivePushTokensResponse",
                            json: "{}"),
            ConformanceCase("two", Devices.ListActivePushTokensResponse(tokens: [android, token]),
                            proto: package + "ListActivePushTokensResponse", json: #"{"tokens": [\#(androidJSON), \#(tokenJSON)]}"#),
            ConformanceCase("default", Devices.MarkPushTokenInactiveRequest(), proto: package + "MarkPushTokenInactiveRequest",
                            json: "{}"),
            ConformanceCase("full", Devices.MarkPushTokenInactiveRequest(app: "elite", token: apns, reason: .badDeviceToken,
                                                                         invalidSince: Timestamp(seconds: 1_795_000_000)),
                            proto: package + "MarkPushTokenInactiveRequest", json: """
                                {"app": "elite", "token": "\(apns)", "reason": "PUSH_TOKEN_INACTIVE_REASON_BAD_DEVICE_TOKEN",
                                 "invalid_since": "2026-11-18T11:06:40Z"}
                                """),
            ConformanceCase("epochInvalidSince", Devices.MarkPushTokenInactiveRequest(app: "", token: "", reason: .unspecified,
                                                                                      invalidSince: Timestamp()),
                            proto: package + "MarkPushTokenInactiveRequest", json: #"{"invalid_since": "1970-01-01T00:00:00Z"}"#),
            ConformanceCase("default", Devices.MarkPushTokenInactiveResponse(), proto: package + "MarkPushTokenInactiveResponse",
                            json: "{}"),
            ConformanceCase("deactivated", Devices.MarkPushTokenInactiveResponse(deactivated: true),
                            proto: package + "MarkPushTokenInactiveResponse", json: #"{"deactivated": true}"#),
        ]
    }()
}
