package import Contracts
package import CryptoCore
import RPC

/// Where a verifier gets the public keys of access tokens.
package protocol SigningKeySource: Sendable {
    /// The current keys and how long they may be cached.
    func fetchKeys() async throws -> (keys: JWKSet, maxAge: Duration)
}

/// The keys from Identity's `GetSigningKeys` RPC.
package struct IdentitySigningKeySource: SigningKeySource {
    package let client: IdentityClient

    package init(client: IdentityClient) { self.client = client }

    package func fetchKeys() async throws -> (keys: JWKSet, maxAge: Duration) {
        let set = try await client.getSigningKeys(options: CallOptions(timeout: .seconds(5)))
        return (try JWKSet(set), .seconds(Int(max(set.maxAgeSeconds, 0))))
    }
}

extension JWKSet {
    /// The EC keys of a `SigningKeySet`; keys of another type or curve are skipped.
    package init(_ set: Identity.SigningKeySet) throws {
        var keys: [JWK] = []
        for key in set.keys {
            let object: [String: JSONValue] = ["kty": .string(key.kty), "crv": .string(key.crv), "alg": .string(key.alg),
                                               "use": .string(key.use), "kid": .string(key.kid),
                                               "x": .string(key.x), "y": .string(key.y)]
            if let parsed = try JWK.parse(object) { keys.append(parsed) }
        }
        try self.init(keys: keys)
    }
}

extension Identity.SigningKey {
    /// The message form of one of our EC public keys.
    package init(_ key: ECVerifyingKey) {
        self.init()
        kid = key.keyID
        kty = "EC"
        crv = "P-256"
        alg = "ES256"
        use = "sig"
        x = Base64URL.encode(key.x)
        y = Base64URL.encode(key.y)
    }
}
