import ArgumentParser
import Foundation
import GatewayClient
import GatewayClientHTTP2

/// The options every command takes: where to connect, how, as which app and user, and how to print.
struct GlobalOptions: ParsableArguments {
    /// The local edge as `make run` starts it.
    static let defaultAddress = "127.0.0.1:8443"

    @Option(help: ArgumentHelp("The gateway (edge) as host:port; default RENDEZVOUS_ADDRESS or \(GlobalOptions.defaultAddress).",
                               valueName: "host:port"))
    var address: String?

    @Option(help: "The app to act in: elite, firstdate, swivo, unseen or momento (default RENDEZVOUS_APP, or the command's own app, or elite).")
    var app: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("TLS, trusting only the CA certificates in this PEM file (a local CA); default RENDEZVOUS_CA_FILE.",
                                                             valueName: "pem"))
    var caFile: String?

    @Flag(help: "Plain HTTP/2 without TLS (the default for loopback addresses when no --ca-file is given, except port 8443 when .data/edge/tls/ca.pem is here, which make run makes for its edge).")
    var plaintext = false

    @Flag(help: "TLS trusting the system's CAs, even on a loopback address.")
    var tls = false

    @Flag(help: "Print machine-readable JSON on stdout (errors as JSON on stderr).")
    var json = false

    @Option(help: ArgumentHelp("Keep this user's session apart from the default one (several users on one machine).",
                               valueName: "name"))
    var profile: String?

    @Option(name: .customLong("session-file"), help: ArgumentHelp("The session file (default ~/.config/rendezvous/<app>[-<profile>].json).",
                                                                  valueName: "path"))
    var sessionFile: String?

    @Option(help: ArgumentHelp("Seconds one call may take.", valueName: "seconds"))
    var timeout: Double = 10

    func validate() throws {
        if plaintext && (tls || caFile != nil) { throw ValidationError("--plaintext cannot be combined with --tls or --ca-file") }
        if let profile, profile.isEmpty || profile.contains("/") { throw ValidationError("--profile must be a plain name") }
        if timeout <= 0 { throw ValidationError("--timeout must be positive") }
        _ = try endpoint()
    }

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The host and port to connect to.
    func endpoint() throws -> (host: String, port: Int) {
        let text = address ?? environment["RENDEZVOUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultAddress
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else { throw ValidationError("the address must be host:port, not \"\(text)\"") }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("the address must be host:port, not \"\(text)\"") }
        return (host, port)
    }

    /// The app: `--app`, RENDEZVOUS_APP, the command's own app, or elite.
    func appID(default commandApp: String? = nil) -> String {
        app ?? environment["RENDEZVOUS_APP"].flatMap { $0.isEmpty ? nil : $0 } ?? commandApp ?? "elite"
    }

    var deadline: Duration { .milliseconds(Int64(timeout * 1000)) }

    /// TLS unless told otherwise; plain HTTP/2 by default only on a loopback address, except the
    /// local edge's port (`defaultAddress`'s) in a checkout where `make run` made that edge's CA
    /// (`localEdgeCA`, a path relative to the working directory): that CA is trusted there.
    /// Other loopback ports are the services themselves, which speak plain HTTP/2 whether or
    /// not the edge's CA is around.
    func security(host: String, port: Int, localEdgeCA: String = GlobalOptions.localEdgeCA)
        -> GatewayConfiguration.TransportSecurity {
        if let caFile { return .tlsTrustingRoots(pemFile: caFile) }
        if plaintext { return .plaintext }
        if let caFile = environment["RENDEZVOUS_CA_FILE"], !caFile.isEmpty, !tls { return .tlsTrustingRoots(pemFile: caFile) }
        if tls { return .tls }
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        guard loopback else { return .tls }
        if port == Self.localEdgePort, FileManager.default.isReadableFile(atPath: localEdgeCA) {
            return .tlsTrustingRoots(pemFile: localEdgeCA)
        }
        return .plaintext
    }

    /// The CA `make run` makes for the local edge, relative to the checkout it runs in.
    static let localEdgeCA = ".data/edge/tls/ca.pem"

    /// The port of `make run`'s edge (its default `RV_EDGE_PORT`), which speaks TLS only.
    static let localEdgePort = 8443

    /// Where the session of `app` (and `--profile`) is kept; the folder is created (0700).
    func sessionPath(app: String) throws -> String {
        if let sessionFile { return sessionFile }
        let base = environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        let folder = base.appendingPathComponent("rendezvous")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let name = profile.map { "\(app)-\($0)" } ?? app
        return folder.appendingPathComponent("\(name).json").path
    }

    /// A gateway client for `app`, its session in the session file.
    func makeClient(app commandApp: String? = nil) throws -> GatewayClient {
        let (host, port) = try endpoint()
        let app = appID(default: commandApp)
        let configuration = GatewayConfiguration(host: host, port: port, security: security(host: host, port: port), app: app,
                                                 deviceName: "rendezvous CLI on \(ProcessInfo.processInfo.hostName)",
                                                 defaultDeadline: deadline)
        return try GatewayClient(configuration: configuration, tokenStore: FileTokenStore(path: try sessionPath(app: app)))
    }

    var output: Output { Output(json: json) }

    /// Global options that take a value, and those that do not.
    static let valueOptions: Set<String> = ["--address", "--app", "--ca-file", "--profile", "--session-file", "--timeout"]
    static let flagOptions: Set<String> = ["--plaintext", "--tls", "--json"]

    /// `arguments` with the global options that come before the subcommand moved to the end.
    static func movingLeadingOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first {
            let name = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? first
            if flagOptions.contains(first) || (valueOptions.contains(name) && first.contains("=")) {
                leading.append(first)
                rest = rest.dropFirst()
            } else if valueOptions.contains(first), rest.count >= 2 {
                leading.append(contentsOf: rest.prefix(2))
                rest = rest.dropFirst(2)
            } else {
                break
            }
        }
        return Array(rest) + leading
    }
}
