import CryptoCore
import Foundation
@testable import Identity
import Runtime
import Testing

/// Sign-in settings from the environment: provider keys (inline or file), per-app audiences,
/// phone code limits, and refusals that name the variable.
@Suite struct SignInSettingsTests {
    static func load(_ values: [String: String]) throws -> IdentitySettings {
        var settings = IdentitySettings(keyEncryptionKey: KeyEncryptionKey.developmentKey)
        try settings.loadSignIn(from: EnvironmentReader(environment: Environment(values)))
        return settings
    }

    static func jwks() throws -> String {
        String(decoding: try JWKSet(keys: [.ec(ECSigningKey.generate(keyID: "k1").verifyingKey)]).jsonBytes(), as: UTF8.self)
    }

    @Test func nothingSet_meansNoProviderKeys_andDefaultAudiences() throws {
        let settings = try Self.load([:])
        #expect(settings.providerKeys.configured.isEmpty)
        #expect(try settings.apps.policy(for: "elite").audiences(for: .apple) == ["com.rendezvous.elite"])
        #expect(settings.phoneCodes.lifetime == 600 && settings.phoneCodes.maxAttempts == 5)
    }

    @Test func inlineAndFileKeys_audiences_andPhoneLimits_areRead() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("google-jwks-\(UUID().uuidString).json")
        try Data(try Self.jwks().utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let settings = try Self.load([
            "RV_IDENTITY_APPLE_JWKS": try Self.jwks(),
            "RV_IDENTITY_GOOGLE_JWKS_FILE": file.path,
            "RV_IDENTITY_ELITE_APPLE_AUDIENCES": "com.elite.dating, com.elite.dating.web ,",
            "RV_IDENTITY_FIRSTDATE_GOOGLE_AUDIENCES": "1234-abc.apps.googleusercontent.com",
            "RV_IDENTITY_PHONE_CODE_LIFETIME": "300",
            "RV_IDENTITY_PHONE_CODE_RESEND_INTERVAL": "60",
            "RV_IDENTITY_PHONE_CODE_MAX_ATTEMPTS": "3",
            "RV_IDENTITY_PHONE_CODE_MAX_SENDS_PER_HOUR": "4",
        ])
        #expect(settings.providerKeys.configured == [.apple, .google])
        #expect(settings.providerKeys[.google]?["k1"] != nil)
        #expect(try settings.apps.policy(for: "elite").audiences(for: .apple) == ["com.elite.dating", "com.elite.dating.web"])
        #expect(try settings.apps.policy(for: "firstdate").audiences(for: .google) == ["1234-abc.apps.googleusercontent.com"])
        #expect(try settings.apps.policy(for: "firstdate").audiences(for: .apple) == ["com.rendezvous.firstdate"])
        #expect(settings.phoneCodes.lifetime == 300 && settings.phoneCodes.resendInterval == 60)
        #expect(settings.phoneCodes.maxAttempts == 3 && settings.phoneCodes.maxSendsPerHour == 4)
    }

    @Test(arguments: [
        (["RV_IDENTITY_APPLE_JWKS": "not json"], "RV_IDENTITY_APPLE_JWKS"),
        (["RV_IDENTITY_APPLE_JWKS": #"{"keys": []}"#], "RV_IDENTITY_APPLE_JWKS"),
        (["RV_IDENTITY_GOOGLE_JWKS_FILE": "/nonexistent/jwks.json"], "RV_IDENTITY_GOOGLE_JWKS_FILE"),
        (["RV_IDENTITY_GOOGLE_JWKS": #"{"keys": []}"#, "RV_IDENTITY_GOOGLE_JWKS_FILE": "/x"], "RV_IDENTITY_GOOGLE_JWKS"),
        (["RV_IDENTITY_PHONE_CODE_LIFETIME": "1"], "RV_IDENTITY_PHONE_CODE_LIFETIME"),
        (["RV_IDENTITY_PHONE_CODE_LIFETIME": "3601"], "RV_IDENTITY_PHONE_CODE_LIFETIME"),
    ])
    func badValue_isAConfigurationErrorNamingTheVariable(_ values: [String: String], _ variable: String) {
        #expect {
            _ = try Self.load(values)
        } throws: { error in
            (error as? ConfigurationError)?.variable == variable
        }
    }
}
