import Foundation
@testable import RendezvousCLI
import Testing

/// What the CLI decides without a server: argument order, join links, photo types, addresses.
@Suite struct CLIParsingTests {
    @Test(arguments: [
        (["--json", "--address", "h:1", "whoami"], ["whoami", "--json", "--address", "h:1"]),
        (["--app=momento", "--plaintext", "momento", "gallery", "E"], ["momento", "gallery", "E", "--app=momento", "--plaintext"]),
        (["whoami", "--json"], ["whoami", "--json"]),
        (["--generate-completion-script", "bash"], ["--generate-completion-script", "bash"]),
        (["--address"], ["--address"]),
    ])
    func leadingGlobalOptions_moveAfterTheSubcommand(arguments: [String], expected: [String]) {
        #expect(GlobalOptions.movingLeadingOptions(arguments) == expected)
    }

    @Test func joinLink_givesItsCode() {
        #expect(MomentoCommand.Join.code(from: "momento://join/7KQ2XM?eventId=abc") == "7KQ2XM")
        #expect(MomentoCommand.Join.code(from: "7KQ2XM") == "7KQ2XM")
    }

    @Test func photoTypes_fromTheFirstBytes() {
        #expect(PhotoUpload.contentType(of: [0xFF, 0xD8, 0xFF, 0xE0]) == "image/jpeg")
        #expect(PhotoUpload.contentType(of: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == "image/png")
        #expect(PhotoUpload.contentType(of: [0, 0, 0, 0x18] + Array("ftypheic".utf8)) == "image/heic")
        #expect(PhotoUpload.contentType(of: Array("GIF89a".utf8)) == nil)
        #expect(PhotoUpload.contentType(of: []) == nil)
    }

    @Test func addresses_andTheirSecurity() throws {
        var options = try GlobalOptions.parse(["--address", "[::1]:7101"])
        #expect(try options.endpoint() == ("::1", 7101))
        #expect(options.security(host: "::1", port: 7101, localEdgeCA: "/nonexistent/ca.pem") == .plaintext)
        options = try GlobalOptions.parse(["--address", "api.example.com:443"])
        #expect(options.security(host: "api.example.com", port: 443) == .tls)
        options = try GlobalOptions.parse(["--address", "127.0.0.1:8443", "--ca-file", "/tmp/ca.pem"])
        #expect(options.security(host: "127.0.0.1", port: 8443) == .tlsTrustingRoots(pemFile: "/tmp/ca.pem"))
        for bad in ["nowhere", "host:0", "host:99999", ":80"] {
            #expect(throws: (any Error).self) { try GlobalOptions.parse(["--address", bad]) }
        }
        #expect(throws: (any Error).self) { try GlobalOptions.parse(["--plaintext", "--ca-file", "x.pem"]) }
    }

    /// In a checkout where `make run` made the edge's CA, the edge's port is TLS with that CA, and
    /// a service's own port on loopback stays plain HTTP/2 (tests and tools call services directly
    /// from such a checkout).
    @Test func localEdgeCA_isTrustedOnTheEdgesPortOnly() throws {
        let ca = FileManager.default.temporaryDirectory.appendingPathComponent("rv-cli-ca-\(UUID().uuidString).pem").path
        try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: ca))
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let options = try GlobalOptions.parse([])
        #expect(options.security(host: "127.0.0.1", port: 8443, localEdgeCA: ca) == .tlsTrustingRoots(pemFile: ca))
        #expect(options.security(host: "localhost", port: 8443, localEdgeCA: ca) == .tlsTrustingRoots(pemFile: ca))
        #expect(options.security(host: "127.0.0.1", port: 7101, localEdgeCA: ca) == .plaintext)
        #expect(options.security(host: "127.0.0.1", port: 8443, localEdgeCA: ca + ".missing") == .plaintext)
        #expect(try GlobalOptions.parse(["--plaintext"]).security(host: "127.0.0.1", port: 8443, localEdgeCA: ca) == .plaintext)
        #expect(options.security(host: "api.example.com", port: 8443, localEdgeCA: ca) == .tls)
    }

    @Test func releaseTimes() throws {
        let inTwoHours = try MomentoCommand.Create.releaseTime(at: nil, in: "2h").timeIntervalSinceNow
        #expect((7_190...7_200).contains(inTwoHours))
        #expect(try MomentoCommand.Create.releaseTime(at: "2026-12-31T23:00:00Z", in: nil).timeIntervalSince1970 == 1_798_758_000)
        #expect(throws: (any Error).self) { try MomentoCommand.Create.releaseTime(at: nil, in: "2 weeks") }
        #expect(throws: (any Error).self) { try MomentoCommand.Create.releaseTime(at: nil, in: nil) }
    }
}
