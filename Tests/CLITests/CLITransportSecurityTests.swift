import CryptoCore
import Foundation
import TestSupport
import Testing

/// `--ca-file`: TLS to a server whose certificate a local CA signed, as `make run`'s edge has.
@Suite struct CLITransportSecurityTests {
    @Test func caFile_trustsTheLocalCA_andAnotherCAOrPlaintextFail() async throws {
        let folder = NSTemporaryDirectory() + "rv-cli-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (certificate, key) = try TestCertificates.makeSelfSigned(commonName: "localhost")
        let (otherCA, _) = try TestCertificates.makeSelfSigned(commonName: "localhost")
        for (name, bytes) in [("cert.pem", certificate), ("key.pem", key), ("other.pem", otherCA)] {
            try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
        }
        let identity = try await DiscoveryStack.startIdentity(
            credentials: "cli=cli-tests-secret-0123456789abcdef",
            environment: ["RV_TLS_CERT_FILE": "\(folder)/cert.pem", "RV_TLS_KEY_FILE": "\(folder)/key.pem"])
        do {
            let address = ["--address", "localhost:\(identity.port)"]
            let cli = CLIRunner(globalArguments: address + ["--app", "momento", "--session-file", "\(folder)/session.json"])
            let health = try await cli.run(["health", "--ca-file", "\(folder)/cert.pem"])
            #expect(health.status == 0 && health.stdout == "SERVING\n", "\(health.stderr)")
            let signedIn = try await cli.run(["sign-in", "anonymous", "--ca-file", "\(folder)/cert.pem", "--json"])
            #expect(signedIn.status == 0, "\(signedIn.stderr)")
            #expect(try signedIn.json()["app"] as? String == "momento")

            let byEnvironment = try await cli.run(["whoami", "--json"], environment: ["RENDEZVOUS_CA_FILE": "\(folder)/cert.pem"])
            #expect(byEnvironment.status == 0, "\(byEnvironment.stderr)")

            let distrusted = try await cli.run(["whoami", "--ca-file", "\(folder)/other.pem"])
            #expect(distrusted.status == 1 && distrusted.stderr.hasPrefix("error: UNAVAILABLE"), "\(distrusted.stderr)")
            let plaintext = try await cli.run(["health", "--plaintext"])
            #expect(plaintext.status == 1)
            let missing = try await cli.run(["whoami", "--ca-file", "\(folder)/missing.pem"])
            #expect(missing.status == 1 && missing.stderr.hasPrefix("error: "), "\(missing.stderr)")
        } catch {
            print("identity log:\n\(identity.log)")
            await identity.stop()
            throw error
        }
        await identity.stop()
    }
}
