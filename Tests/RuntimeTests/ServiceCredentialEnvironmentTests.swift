import Auth
import Runtime
import Testing

/// `RV_SERVICE_NAME`/`RV_SERVICE_SECRET` (the caller's own credential) and
/// `RV_SERVICE_CREDENTIALS` (the callers a server accepts), read at start-up.
@Suite struct ServiceCredentialEnvironmentTests {
    static let secret = String(repeating: "s", count: 40)

    static func reader(_ values: [String: String]) -> EnvironmentReader {
        EnvironmentReader(environment: Environment(values))
    }

    @Test func ownCredential_bothSet_neitherSet() throws {
        let credential = try Self.reader(["RV_SERVICE_NAME": "messaging", "RV_SERVICE_SECRET": Self.secret]).serviceCredential()
        #expect(credential?.name == "messaging" && credential?.secret == Self.secret)
        #expect(try Self.reader([:]).serviceCredential() == nil)
    }

    @Test func ownCredential_halfSetOrInvalid_namesTheVariable_notTheSecret() {
        #expect(throws: ConfigurationError.self) { try Self.reader(["RV_SERVICE_NAME": "messaging"]).serviceCredential() }
        #expect(throws: ConfigurationError.self) { try Self.reader(["RV_SERVICE_SECRET": Self.secret]).serviceCredential() }
        do {
            _ = try Self.reader(["RV_SERVICE_NAME": "Messaging", "RV_SERVICE_SECRET": Self.secret]).serviceCredential()
            Issue.record("expected a ConfigurationError")
        } catch {
            #expect(error.variable == "RV_SERVICE_NAME")
        }
        do {
            _ = try Self.reader(["RV_SERVICE_NAME": "messaging", "RV_SERVICE_SECRET": "too-short"]).serviceCredential()
            Issue.record("expected a ConfigurationError")
        } catch {
            #expect(error.variable == "RV_SERVICE_SECRET")
            #expect(!error.description.contains("too-short"))
        }
    }

    @Test func acceptedCallers_parsed_orNoneWhenUnset() throws {
        let accepted = try Self.reader(["RV_SERVICE_CREDENTIALS": "messaging=\(Self.secret),media=\(Self.secret)"])
            .acceptedServiceCredentials()
        #expect(accepted.names == ["messaging", "media"])
        #expect(accepted.accepts(try ServiceCredential(name: "media", secret: Self.secret)))
        #expect(try Self.reader([:]).acceptedServiceCredentials().isEmpty)
    }

    @Test func acceptedCallers_malformed_isAConfigurationErrorNamingTheVariable() {
        do {
            _ = try Self.reader(["RV_SERVICE_CREDENTIALS": "messaging=short"]).acceptedServiceCredentials()
            Issue.record("expected a ConfigurationError")
        } catch {
            #expect(error.variable == "RV_SERVICE_CREDENTIALS")
            #expect(!error.description.contains("=short"))
        }
    }
}
