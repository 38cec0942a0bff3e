import Auth
import Contracts
import CryptoCore
import Foundation
import Logging
import RPC

/// Sends one push to one device token through APNs with the provider token, retrying 429, 5xx
/// and broken connections with exponential backoff (bounded), making a new provider token once
/// on 403 ExpiredProviderToken, and reporting refused tokens to identity (MarkPushTokenInactive).
struct PushSender: Sendable {
    let production: APNsClient
    let sandbox: APNsClient
    let providerToken: APNsProviderToken
    let devices: DevicesInternalClient
    let credential: ServiceCredential?
    let maxAttempts: Int
    let backoff: Duration
    let logger: Logger

    func send(_ notification: APNsNotification, to token: Devices.PushToken, app: String) async -> PushDelivery {
        let client = token.environment == .sandbox ? sandbox : production
        var attempts = 0
        var refreshedProviderToken = false
        var last = PushDelivery(status: .failed, httpStatus: 0, attempts: 0)
        while attempts < maxAttempts {
            attempts += 1
            let response: APNsResponse
            let bearer: String
            do {
                bearer = try providerToken.current()
                response = try await client.send(notification, to: token.token, bearer: bearer)
            } catch {
                last = PushDelivery(status: .failed, httpStatus: 0, reason: "\(error)", attempts: attempts)
                await pause(before: attempts)
                continue
            }
            last = PushDelivery(status: .failed, httpStatus: response.status, reason: response.reason, attempts: attempts,
                                apnsID: response.apnsID)
            switch (response.status, response.reason) {
            case (200, _):
                last.status = .delivered
                return last
            case (410, _):
                last.status = .unregistered
                await markInactive(token, app: app, reason: .unregistered, since: response.timestamp)
                return last
            case (400, "BadDeviceToken"):
                last.status = .badToken
                await markInactive(token, app: app, reason: .badDeviceToken, since: nil)
                return last
            case (400, "DeviceTokenNotForTopic"):
                last.status = .badToken
                await markInactive(token, app: app, reason: .notForTopic, since: nil)
                return last
            case (403, "ExpiredProviderToken") where !refreshedProviderToken:
                refreshedProviderToken = true
                _ = try? providerToken.replace(bearer)
                attempts -= 1
            case (429, _), (500...599, _):
                await pause(before: attempts)
            default:
                last.status = .rejected
                return last
            }
        }
        return last
    }

    /// Waits `backoff` × 2^(attempt-1), with jitter, unless that was the last attempt.
    private func pause(before attempt: Int) async {
        guard attempt < maxAttempts else { return }
        let delay = backoff * (1 << min(attempt - 1, 10)) * Double.random(in: 0.8...1.2)
        try? await Task.sleep(for: delay)
    }

    private func markInactive(_ token: Devices.PushToken, app: String, reason: Devices.PushTokenInactiveReason,
                              since milliseconds: Int64?) async {
        var request = Devices.MarkPushTokenInactiveRequest()
        request.app = app
        request.token = token.token
        request.reason = reason
        if let milliseconds { request.invalidSince = Timestamp(microseconds: milliseconds * 1000) }
        do {
            _ = try await devices.markPushTokenInactive(request, options: options)
        } catch {
            logger.warning("could not mark a push token inactive", metadata: ["error": "\(error)"])
        }
    }

    var options: CallOptions {
        credential.map { CallOptions.service($0, timeout: .seconds(10)) } ?? CallOptions(timeout: .seconds(10))
    }
}
