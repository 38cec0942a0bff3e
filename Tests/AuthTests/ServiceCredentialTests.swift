@testable import Auth
import CryptoCore
import Testing

/// The credential's rules, its `authorization` form, and the accepted list's text form.
@Suite struct ServiceCredentialTests {
    static let secret = String(repeating: "a1", count: 16)
    static let otherSecret = String(repeating: "b2", count: 16)

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test func credential_roundTripsThroughItsAuthorizationValue() throws {
        let credential = try ServiceCredential(name: "messaging", secret: Self.secret)
        #expect(credential.authorizationValue == "Service messaging:\(Self.secret)")
        let parsed = try ServiceCredential(authorization: credential.authorizationValue)
        #expect(parsed.name == "messaging" && parsed.secret == Self.secret)
        let lowerScheme = try ServiceCredential(authorization: "service messaging:\(Self.secret)")
        #expect(lowerScheme.name == "messaging")
    }

    @Test func credential_secretMayHoldColons_nameMayNot() throws {
        let secret = "abc:def:" + Self.secret
        let parsed = try ServiceCredential(authorization: "Service media:\(secret)")
        #expect(parsed.name == "media" && parsed.secret == secret)
    }

    @Test func credential_descriptionNeverShowsTheSecret() throws {
        let credential = try ServiceCredential(name: "discovery", secret: Self.secret)
        #expect(!"\(credential)".contains(Self.secret))
        #expect("\(credential)" == "ServiceCredential(discovery)")
    }

    @Test(arguments: [
        ("", secret), ("Messaging", secret), ("1st", secret), ("has space", secret), ("has:colon", secret),
        (String(repeating: "n", count: 64), secret),
        ("messaging", String(repeating: "x", count: 31)), ("messaging", String(repeating: "x", count: 513)),
        ("messaging", secret + " "), ("messaging", secret + ","), ("messaging", secret + "é"),
    ])
    func credential_breakingTheRules_isRefused(_ name: String, _ secret: String) {
        #expect(throws: ServiceCredentialError.self) { try ServiceCredential(name: name, secret: secret) }
    }

    @Test func credential_errorMessageNamesTheServiceButNotTheSecret() {
        let short = "short-secret-value"
        do {
            _ = try ServiceCredential(name: "messaging", secret: short)
            Issue.record("expected a failure")
        } catch {
            #expect(error.message.contains("messaging"))
            #expect(!error.message.contains(short))
        }
    }

    @Test(arguments: [
        ("Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln", ServiceAuthFailure.Reason.missingCredential),
        ("Service", .missingCredential),
        ("Basic dXNlcjpwYXNz", .missingCredential),
        ("Service messaging", .badCredential),
        ("Service messaging:short", .badCredential),
        ("Service :\(secret)", .badCredential),
        ("Service Messaging:\(secret)", .badCredential),
    ])
    func authorization_thatIsNotAServiceCredential_saysWhy(_ header: String, _ reason: ServiceAuthFailure.Reason) {
        #expect(throws: ServiceAuthFailure(reason)) { try ServiceCredential(authorization: header) }
    }

    @Test func accepted_plainSecretsAndDigests_acceptOnlyTheRightSecret() throws {
        let digest = Self.hex(SHA256Digest.hash(Array(Self.otherSecret.utf8)))
        let accepted = try ServiceCredentials(parsing: " messaging=\(Self.secret) , discovery=sha256:\(digest.uppercased()),")
        #expect(accepted.names == ["messaging", "discovery"])
        #expect(accepted.accepts(try ServiceCredential(name: "messaging", secret: Self.secret)))
        #expect(accepted.accepts(try ServiceCredential(name: "discovery", secret: Self.otherSecret)))
        #expect(!accepted.accepts(try ServiceCredential(name: "messaging", secret: Self.otherSecret)))
        #expect(!accepted.accepts(try ServiceCredential(name: "discovery", secret: Self.secret)))
        #expect(!accepted.accepts(try ServiceCredential(name: "media", secret: Self.secret)))
    }

    @Test func accepted_none_acceptsNobody() throws {
        for accepted in [ServiceCredentials(), try ServiceCredentials(parsing: ""), try ServiceCredentials(parsing: " , ")] {
            #expect(accepted.isEmpty)
            #expect(!accepted.accepts(try ServiceCredential(name: "messaging", secret: Self.secret)))
        }
    }

    @Test(arguments: [
        "messaging", "messaging:\(secret)", "messaging=short", "messaging=\(secret),messaging=\(otherSecret)",
        "Messaging=\(secret)", "messaging=sha256:abc", "messaging=sha256:" + String(repeating: "g", count: 64),
        "messaging=sha256:" + String(repeating: "0", count: 62), "=\(secret)", "bad name=sha256:" + String(repeating: "0", count: 64),
    ])
    func accepted_malformedText_isRefused_withoutEchoingSecrets(_ text: String) {
        do {
            _ = try ServiceCredentials(parsing: text)
            Issue.record("expected \(text) to be refused")
        } catch {
            #expect(!error.message.contains(Self.secret))
            #expect(!error.message.contains(Self.otherSecret))
        }
    }

    @Test func access_anyServiceOrOnlySome() {
        #expect(ServiceAccess.anyService.allows("media"))
        #expect(ServiceAccess.only(["messaging"]).allows("messaging"))
        #expect(!ServiceAccess.only(["messaging"]).allows("media"))
        #expect(!ServiceAccess.only([]).allows("messaging"))
    }
}
