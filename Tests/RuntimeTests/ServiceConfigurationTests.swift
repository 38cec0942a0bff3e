import CryptoCore
import Foundation
import Logging
import RPC
import Runtime
import Testing

@Suite struct ServiceConfigurationTests {
    static let services: [(String, Int)] = [
        ("identity", 7101), ("discovery", 7102), ("messaging", 7103), ("production", 7104), ("media", 7105),
        ("interop", 7199),
    ]

    @Test(arguments: services)
    func load_emptyEnvironment_usesLocalDefaults(name: String, port: Int) throws {
        let configuration = try ServiceConfiguration.load(name: name, defaultPort: port, environment: Environment(), arguments: [])
        #expect(configuration.name == name)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == port)
        #expect(configuration.adminPort == port + 100)
        #expect(configuration.logLevel == .info)
        #expect(configuration.logFormat == .text)
        #expect(configuration.shutdownGracePeriod == .seconds(10))
        #expect(configuration.loopCount == nil)
        #expect(configuration.tls == nil)
        #expect(configuration.postgresURL == nil)
        #expect(configuration.eventLagBound == .seconds(60))
        #expect(configuration.corsOrigins.isEmpty)
    }

    @Test func load_tracing_endpointOffByDefault_andReadAsHostPortOrHTTPURL() throws {
        let none = try ServiceConfiguration.load(name: "identity", defaultPort: 7101, environment: Environment(), arguments: [])
        #expect(none.otlpEndpoint == nil)
        #expect(none.traceSampleRatio == 1)
        for value in ["collector:4317", "http://collector:4317", "http://collector:4317/"] {
            let configuration = try ServiceConfiguration.load(
                name: "identity", defaultPort: 7101,
                environment: Environment(["RV_OTLP_ENDPOINT": value, "RV_TRACE_SAMPLE_RATIO": "0.1"]), arguments: [])
            #expect(configuration.otlpEndpoint == ServiceConfiguration.Endpoint(host: "collector", port: 4317))
            #expect(configuration.traceSampleRatio == 0.1)
        }
    }

    @Test func load_corsOrigins_areListedOriginsOrStar() throws {
        let configuration = try ServiceConfiguration.load(
            name: "identity", defaultPort: 7101,
            environment: Environment(["RV_CORS_ORIGINS": "https://App.example.com, http://localhost:3000,,"]), arguments: [])
        #expect(configuration.corsOrigins == ["https://app.example.com", "http://localhost:3000"])
        #expect(try configuration.makeServerConfiguration().cors == CORSPolicy(allowedOrigins: configuration.corsOrigins))
        let star = try ServiceConfiguration.load(name: "identity", defaultPort: 7101,
                                                 environment: Environment(["RV_CORS_ORIGINS": "*"]), arguments: [])
        #expect(star.corsOrigins == ["*"])
    }

    @Test func load_everyVariableSet_readsThem() throws {
        let environment = Environment([
            "RV_IDENTITY_HOST": "0.0.0.0",
            "RV_IDENTITY_PORT": "9000",
            "RV_IDENTITY_ADMIN_PORT": "9999",
            "RV_LOG_LEVEL": "DEBUG",
            "RV_LOG_FORMAT": "json",
            "RV_SHUTDOWN_GRACE_SECONDS": "2.5",
            "RV_LOOP_COUNT": "3",
            "RV_PG_URL_IDENTITY": "postgresql://identity@127.0.0.1:7432/rendezvous",
            "RV_EVENT_LAG_BOUND_SECONDS": "15",
            "RV_DISCOVERY_PORT": "1",
        ])
        let configuration = try ServiceConfiguration.load(name: "identity", defaultPort: 7101, environment: environment, arguments: [])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.adminPort == 9999)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.logFormat == .json)
        #expect(configuration.shutdownGracePeriod == .milliseconds(2500))
        #expect(configuration.loopCount == 3)
        #expect(configuration.postgresURL == "postgresql://identity@127.0.0.1:7432/rendezvous")
        #expect(configuration.eventLagBound == .seconds(15))
    }

    @Test func load_eventLagBoundZero_turnsTheLagCheckOff() throws {
        let configuration = try ServiceConfiguration.load(
            name: "media", defaultPort: 7105, environment: Environment(["RV_EVENT_LAG_BOUND_SECONDS": "0"]), arguments: [])
        #expect(configuration.eventLagBound == nil)
        #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.load(name: "media", defaultPort: 7105,
                                          environment: Environment(["RV_EVENT_LAG_BOUND_SECONDS": "-1"]), arguments: [])
        }
    }

    @Test func load_portWithoutAdminPort_putsAdminOneHundredAbove() throws {
        let configuration = try ServiceConfiguration.load(
            name: "media", defaultPort: 7105, environment: Environment(["RV_MEDIA_PORT": "8105"]), arguments: [])
        #expect(configuration.adminPort == 8205)
    }

    @Test func load_portZero_makesAdminPortZero() throws {
        let configuration = try ServiceConfiguration.load(
            name: "media", defaultPort: 7105, environment: Environment(), arguments: ["--port", "0"])
        #expect(configuration.port == 0)
        #expect(configuration.adminPort == 0)
    }

    @Test func load_arguments_overrideEnvironment() throws {
        let environment = Environment(["RV_INTEROP_PORT": "8000", "RV_INTEROP_HOST": "0.0.0.0"])
        let configuration = try ServiceConfiguration.load(
            name: "interop", defaultPort: 7199, environment: environment,
            arguments: ["--port", "8100", "--host", "127.0.0.1", "--admin-port", "8300"])
        #expect(configuration.port == 8100)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.adminPort == 8300)
    }

    @Test func load_emptyValue_countsAsUnset() throws {
        let configuration = try ServiceConfiguration.load(
            name: "identity", defaultPort: 7101, environment: Environment(["RV_IDENTITY_PORT": "", "RV_LOG_LEVEL": ""]),
            arguments: [])
        #expect(configuration.port == 7101)
        #expect(configuration.logLevel == .info)
    }

    /// (environment, arguments, the variable the error must name).
    static let invalid: [([String: String], [String], String)] = [
        (["RV_IDENTITY_PORT": "http"], [], "RV_IDENTITY_PORT"),
        (["RV_IDENTITY_PORT": "70000"], [], "RV_IDENTITY_PORT"),
        (["RV_IDENTITY_PORT": "-1"], [], "RV_IDENTITY_PORT"),
        (["RV_IDENTITY_ADMIN_PORT": "x"], [], "RV_IDENTITY_ADMIN_PORT"),
        (["RV_IDENTITY_ADMIN_PORT": "7101"], [], "RV_IDENTITY_ADMIN_PORT"),
        (["RV_IDENTITY_PORT": "65500"], [], "RV_IDENTITY_ADMIN_PORT"),
        (["RV_IDENTITY_HOST": "example.com"], [], "RV_IDENTITY_HOST"),
        (["RV_IDENTITY_HOST": "::1"], [], "RV_IDENTITY_HOST"),
        (["RV_LOG_LEVEL": "verbose"], [], "RV_LOG_LEVEL"),
        (["RV_LOG_FORMAT": "xml"], [], "RV_LOG_FORMAT"),
        (["RV_SHUTDOWN_GRACE_SECONDS": "soon"], [], "RV_SHUTDOWN_GRACE_SECONDS"),
        (["RV_SHUTDOWN_GRACE_SECONDS": "-1"], [], "RV_SHUTDOWN_GRACE_SECONDS"),
        (["RV_SHUTDOWN_GRACE_SECONDS": "inf"], [], "RV_SHUTDOWN_GRACE_SECONDS"),
        (["RV_LOOP_COUNT": "0"], [], "RV_LOOP_COUNT"),
        (["RV_LOOP_COUNT": "many"], [], "RV_LOOP_COUNT"),
        (["RV_CORS_ORIGINS": "app.example.com"], [], "RV_CORS_ORIGINS"),
        (["RV_CORS_ORIGINS": "https://app.example.com/"], [], "RV_CORS_ORIGINS"),
        (["RV_CORS_ORIGINS": "https://"], [], "RV_CORS_ORIGINS"),
        (["RV_OTLP_ENDPOINT": "collector"], [], "RV_OTLP_ENDPOINT"),
        (["RV_OTLP_ENDPOINT": "https://collector:4317"], [], "RV_OTLP_ENDPOINT"),
        (["RV_TRACE_SAMPLE_RATIO": "1.5"], [], "RV_TRACE_SAMPLE_RATIO"),
        (["RV_TRACE_SAMPLE_RATIO": "ten percent"], [], "RV_TRACE_SAMPLE_RATIO"),
        (["RV_TLS_CERT_FILE": "/etc/hostname"], [], "RV_TLS_KEY_FILE"),
        (["RV_TLS_KEY_FILE": "/etc/hostname"], [], "RV_TLS_CERT_FILE"),
        (["RV_TLS_CERT_FILE": "/nonexistent/cert.pem", "RV_TLS_KEY_FILE": "/etc/hostname"], [], "RV_TLS_CERT_FILE"),
        (["RV_TLS_CERT_FILE": "/etc/hostname", "RV_TLS_KEY_FILE": "/nonexistent/key.pem"], [], "RV_TLS_KEY_FILE"),
        ([:], ["--port"], "--port"),
        ([:], ["--port", "eighty"], "--port"),
        ([:], ["--admin-port", "99999"], "--admin-port"),
        ([:], ["--host"], "--host"),
        ([:], ["--host", "nowhere"], "--host"),
        ([:], ["--verbose"], "--verbose"),
    ]

    @Test(arguments: invalid)
    func load_invalidSetting_throwsNamingIt(environment: [String: String], arguments: [String], variable: String) {
        #expect {
            _ = try ServiceConfiguration.load(name: "identity", defaultPort: 7101, environment: Environment(environment),
                                              arguments: arguments)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.variable == variable && error.description.hasPrefix("\(variable): ")
        }
    }

    @Test func makeServerConfiguration_plaintext_copiesAddressAndLoops() throws {
        var configuration = ServiceConfiguration(name: "identity", port: 7101)
        configuration.host = "0.0.0.0"
        configuration.loopCount = 2
        let server = try configuration.makeServerConfiguration()
        #expect(server.host == "0.0.0.0")
        #expect(server.port == 7101)
        #expect(server.loopCount == 2)
        guard case .plaintext = server.security else {
            Issue.record("expected plaintext")
            return
        }
    }

    @Test func makeServerConfiguration_tlsFiles_loadsContext() throws {
        let (certificate, key) = try TestCertificates.makeSelfSigned()
        let directory = try TemporaryDirectory()
        let certificateFile = try directory.write("cert.pem", certificate)
        let keyFile = try directory.write("key.pem", key)
        let configuration = try ServiceConfiguration.load(
            name: "identity", defaultPort: 7101,
            environment: Environment(["RV_TLS_CERT_FILE": certificateFile, "RV_TLS_KEY_FILE": keyFile]), arguments: [])
        #expect(configuration.tls == .init(certificateChainFile: certificateFile, privateKeyFile: keyFile))
        guard case .tls = try configuration.makeServerConfiguration().security else {
            Issue.record("expected TLS")
            return
        }
    }

    @Test func makeServerConfiguration_unusableCertificate_throwsNamingIt() throws {
        let directory = try TemporaryDirectory()
        let garbage = try directory.write("cert.pem", Array("not a certificate".utf8))
        var configuration = ServiceConfiguration(name: "identity", port: 7101)
        configuration.tls = .init(certificateChainFile: garbage, privateKeyFile: garbage)
        #expect {
            _ = try configuration.makeServerConfiguration()
        } throws: { error in
            (error as? ConfigurationError)?.variable == "RV_TLS_CERT_FILE"
        }
    }
}

@Suite struct ServiceMainTests {
    @Test func execute_badEnvironment_returnsTwoBeforeStarting() async {
        let status = await ServiceMain.execute(
            name: "identity", defaultPort: 0, arguments: [], environment: Environment(["RV_LOG_FORMAT": "yaml"]),
            onListening: { _ in Issue.record("must not start") }) { _ in
            Issue.record("must not set up services")
            return []
        }
        #expect(status == 2)
    }

    @Test func environmentReader_required_namesTheMissingVariable() throws {
        let reader = EnvironmentReader(environment: Environment(["RV_IDENTITY_KEY_FILE": "/k.pem"]))
        #expect(throws: ConfigurationError(variable: "RV_IDENTITY_JWKS_URL", message: "must be set")) {
            _ = try reader.required("RV_IDENTITY_JWKS_URL")
        }
        #expect(try reader.required("RV_IDENTITY_KEY_FILE") == "/k.pem")
    }
}

/// A directory under /tmp removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "runtime-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
