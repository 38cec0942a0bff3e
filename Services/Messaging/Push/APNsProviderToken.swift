import CryptoCore
import Foundation
import Synchronization

/// The provider authentication token APNs takes in `authorization: bearer` (Apple: "Establishing
/// a token-based connection to APNs"): an ES256 JWT whose header names the .p8 key (`kid`) and
/// whose claims are the team (`iss`) and the time it was made (`iat`). One token serves every
/// push until it is `refreshAfter` old; APNs refuses tokens older than an hour and updates more
/// often than every 20 minutes, so the default is 50 minutes. When APNs answers 403
/// ExpiredProviderToken for the current token, `replace` makes a new one at once.
final class APNsProviderToken: Sendable {
    private let key: ECSigningKey
    private let teamID: String
    private let refreshAfter: Duration

    private struct Current {
        var token: String
        var madeAt: ContinuousClock.Instant
    }

    private let state = Mutex<Current?>(nil)

    init(keyPEM: [UInt8], keyID: String, teamID: String, refreshAfter: Duration) throws {
        key = try ECSigningKey(pem: keyPEM, keyID: keyID)
        self.teamID = teamID
        self.refreshAfter = refreshAfter
    }

    /// The token to send now: the current one while it is young enough, else a new one.
    func current() throws -> String {
        try state.withLock { state in
            let now = ContinuousClock.now
            if let current = state, now - current.madeAt < refreshAfter { return current.token }
            let token = try make()
            state = Current(token: token, madeAt: now)
            return token
        }
    }

    /// APNs refused `rejected` as expired: a new token unless another push replaced it already.
    func replace(_ rejected: String) throws -> String {
        try state.withLock { state in
            if let current = state, current.token != rejected { return current.token }
            let token = try make()
            state = Current(token: token, madeAt: ContinuousClock.now)
            return token
        }
    }

    private func make() throws -> String {
        let claims = JSONValue.object(["iss": .string(teamID), "iat": .integer(Int64(Date().timeIntervalSince1970))])
        return try JWS.sign(payload: claims.serialized(), key: key)
    }
}
