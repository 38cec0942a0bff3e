import CryptoCore
import Foundation
import Runtime

/// The public keys each provider signs its ID tokens with, configured on the server (it has no
/// internet to fetch them): `RV_IDENTITY_APPLE_JWKS` (the JWKS JSON itself) or
/// `RV_IDENTITY_APPLE_JWKS_FILE` (a path to it), and the same for `GOOGLE`. The sets are the
/// documents Apple (https://appleid.apple.com/auth/keys) and Google
/// (https://www.googleapis.com/oauth2/v3/certs) publish; update them when the providers rotate
/// and restart. A provider without keys refuses sign-in with PROVIDER_NOT_CONFIGURED.
struct ProviderKeys: Sendable {
    private var sets: [SignInProvider: JWKSet]

    init(_ sets: [SignInProvider: JWKSet] = [:]) {
        self.sets = sets
    }

    /// The provider's keys, if configured.
    subscript(provider: SignInProvider) -> JWKSet? {
        get { sets[provider] }
        set { sets[provider] = newValue }
    }

    /// Every provider whose keys are configured.
    var configured: [SignInProvider] { SignInProvider.allCases.filter { sets[$0] != nil } }

    /// The keys from the environment; a variable that is set must hold a usable JWKS.
    static func load(from environment: EnvironmentReader) throws -> ProviderKeys {
        var keys = ProviderKeys()
        for provider in SignInProvider.allCases {
            let inline = provider.environmentPrefix + "_JWKS"
            let file = inline + "_FILE"
            let text: [UInt8]
            let variable: String
            switch (environment[inline], environment[file]) {
            case (nil, nil):
                continue
            case (let json?, nil):
                (text, variable) = (Array(json.utf8), inline)
            case (nil, let path?):
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ConfigurationError(variable: file, message: "cannot read \(path)")
                }
                (text, variable) = (Array(data), file)
            case (.some, .some):
                throw ConfigurationError(variable: inline, message: "set \(inline) or \(file), not both")
            }
            guard let set = try? JWKSet(json: text), !set.keys.isEmpty else {
                throw ConfigurationError(variable: variable, message: "must be a JWK Set with at least one RS256 or ES256 key")
            }
            keys[provider] = set
        }
        return keys
    }
}
