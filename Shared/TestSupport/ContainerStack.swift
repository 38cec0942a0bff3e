package import Foundation

/// `compose/docker-compose.yml` run by podman-compose from the images `make images` built
/// (`RV_IMAGE_TAG`, default dev): Postgres with PostGIS, the five services, interop and the edge,
/// each in a container on the project's own network, with Prometheus beside them
/// (`docker-compose.monitoring.yml`). Nothing is shared with this host but the edge's TLS port and
/// Prometheus' port, published on free loopback ports, and the fake APNs messaging pushes to,
/// which the containers reach as host.containers.internal. Secrets are made for the run;
/// `stop()` takes everything down, volumes included. podman's resolver (aardvark-dns 1.4)
/// loses queries whenever a container starts, so the run adds `podman/fixed-addresses.yml`,
/// as the README tells podman users to: every name the deployment uses is in /etc/hosts.
package final class ContainerStack: Sendable {
    package static let services = ["identity", "discovery", "messaging", "production", "media"]

    /// podman-compose's project: the prefix of every container, network and volume of the run.
    package let project: String
    package let edgePort: Int
    /// Prometheus' HTTP API and UI on 127.0.0.1.
    package let prometheusPort: Int
    /// The CA that signed the edge's certificate (compose/nginx/make-cert.sh).
    package let caFile: String
    /// The fake APNs messaging pushes to.
    package let pushes: FakeAPNs
    private let directory: URL
    private let environment: [String: String]
    private let composeFiles: [String]

    private init(project: String, edgePort: Int, prometheusPort: Int, caFile: String, pushes: FakeAPNs, directory: URL,
                 environment: [String: String], composeFiles: [String]) {
        self.project = project
        self.edgePort = edgePort
        self.prometheusPort = prometheusPort
        self.caFile = caFile
        self.pushes = pushes
        self.directory = directory
        self.environment = environment
        self.composeFiles = composeFiles
    }

    /// Whether this run should use containers: `make test` sets RV_CONTAINER_TESTS=1 after
    /// `make images`.
    package static var enabled: Bool { ProcessInfo.processInfo.environment["RV_CONTAINER_TESTS"] == "1" }

    /// Brings the deployment up and waits until every service's own health check (the image's
    /// HEALTHCHECK) and a health call through the edge pass. `messagingEnvironment` and
    /// `mediaEnvironment` add to those services' settings (shorter timers for journeys).
    package static func start(messagingEnvironment: [String: String] = [:], mediaEnvironment: [String: String] = [:],
                              timeout: Duration = .seconds(240)) async throws -> ContainerStack {
        let id = UUID().uuidString.prefix(8).lowercased()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-containers-\(id)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let compose = RepositoryPaths.root.appendingPathComponent("compose")

        // The edge's certificate, readable by the edge's user (the image runs nginx as 10001).
        let tls = directory.appendingPathComponent("tls")
        let cert = try await Subprocess.run("/bin/bash", [compose.appendingPathComponent("nginx/make-cert.sh").path, tls.path],
                                            timeout: .seconds(60))
        guard cert.exitCode == 0 else { throw SubprocessError(message: "make-cert.sh: \(cert.output)") }
        for name in ["", "edge.pem", "edge.key", "ca.pem"] {
            try FileManager.default.setAttributes([.ownerAccountID: 10001, .groupOwnerAccountID: 10001],
                                                  ofItemAtPath: tls.appendingPathComponent(name).path)
        }

        let pushes = try FakeAPNs(host: "0.0.0.0", serverName: "host.containers.internal")
        var messaging = try pushes.messagingEnvironment(directory: directory.appendingPathComponent("apns"),
                                                        serverName: "host.containers.internal")
        messaging.merge(messagingEnvironment) { _, given in given }
        let apnsFolder = directory.appendingPathComponent("apns").path
        // Added to docker-compose.yml: these settings and the fake's key and CA, at the same path.
        let override: [String: Any] = ["services": [
            "messaging": ["environment": messaging, "volumes": ["\(apnsFolder):\(apnsFolder):ro"]],
            "media": ["environment": mediaEnvironment],
        ]]
        let overrideFile = directory.appendingPathComponent("compose.override.json")
        try JSONSerialization.data(withJSONObject: override, options: [.sortedKeys]).write(to: overrideFile)

        let secret = { (name: String) in "\(name)-\(UUID().uuidString.lowercased())" }
        var environment: [String: String] = [
            "CONTAINERS_CONF": compose.appendingPathComponent("podman/containers.conf").path,
            "RV_IMAGE_TAG": ProcessInfo.processInfo.environment["RV_IMAGE_TAG"] ?? "dev",
            "RV_EDGE_ADDRESS": "127.0.0.1", "RV_EDGE_PORT": String(try LocalPort.free()),
            "RV_EDGE_HTTP1_PORT": String(try LocalPort.free()), "RV_EDGE_TLS_DIR": tls.path,
            "RV_PROMETHEUS_PORT": String(try LocalPort.free()),
            "RV_IDENTITY_KEY_ENCRYPTION_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
            "RV_MEDIA_URL_SECRET": secret("media-url-secret"),
            // podman/fixed-addresses.yml's network, one of its own per run (RV_COMPOSE_SUBNET pins it
            // where other deployments share the host).
            "RV_COMPOSE_SUBNET": ProcessInfo.processInfo.environment["RV_COMPOSE_SUBNET"] ?? "10.89.\(Int.random(in: 200...254))",
        ]
        var credentials: [String] = []
        for service in services {
            environment["RV_PG_PASSWORD_\(service.uppercased())"] = secret("pg")
            let serviceSecret = secret("\(service)-secret")
            environment["RV_SERVICE_SECRET_\(service.uppercased())"] = serviceSecret
            credentials.append("\(service)=\(serviceSecret)")
        }
        environment["RV_SERVICE_CREDENTIALS"] = credentials.joined(separator: ",")

        let stack = ContainerStack(project: "rvtest\(id)", edgePort: Int(environment["RV_EDGE_PORT"]!)!,  // set above
                                   prometheusPort: Int(environment["RV_PROMETHEUS_PORT"]!)!,  // set above
                                   caFile: tls.appendingPathComponent("ca.pem").path, pushes: pushes, directory: directory,
                                   environment: environment,
                                   composeFiles: [compose.appendingPathComponent("docker-compose.yml").path,
                                                  compose.appendingPathComponent("podman/fixed-addresses.yml").path,
                                                  compose.appendingPathComponent("docker-compose.monitoring.yml").path,
                                                  overrideFile.path])
        do {
            try await stack.compose(["up", "-d"], timeout: timeout)
            let deadline = ContinuousClock.now + timeout
            for service in services + ["interop"] {
                try await stack.waitUntilHealthy(service, deadline: deadline)
            }
            try await stack.waitUntilEdgeAnswers(deadline: deadline)
            return stack
        } catch {
            let logs = await stack.logs()
            _ = try? await stack.stop()
            throw SubprocessError(message: "\(error)\n\(logs)")
        }
    }

    /// The container podman-compose made for `service`.
    package func container(_ service: String) -> String { "\(project)_\(service)_1" }

    /// Stops `service`'s container as an operator would (`podman-compose stop`): SIGTERM, drain.
    package func stopService(_ service: String) async throws {
        try await compose(["stop", service], timeout: .seconds(60))
    }

    /// Starts `service`'s container again and waits for its health check.
    package func startService(_ service: String) async throws {
        try await compose(["start", service], timeout: .seconds(60))
        try await waitUntilHealthy(service, deadline: .now + .seconds(90))
    }

    /// Gives `role` to `accountID` in `app` with `identity grant-role` inside identity's container.
    package func grantRole(_ role: String, to accountID: String, app: String) async throws {
        try await podman(["exec", container("identity"), "/usr/local/bin/service", "grant-role", "--app", app,
                          "--account-id", accountID, "--role", role], timeout: .seconds(60))
    }

    /// Every container's story for a failure's report: the last lines of its log that are not
    /// a successful call's "rpc finished" (those are counted), so warnings, refusals and
    /// failed calls stay within what a CI report keeps.
    package func logs() async -> String {
        var text = ""
        for service in ["postgres"] + Self.services + ["interop", "edge", "prometheus"] {
            guard let result = try? await Subprocess.run("/usr/bin/podman", ["logs", container(service)],
                                                         environment: environment, timeout: .seconds(20)) else {
                text += "\(service) log: (none)\n"
                continue
            }
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: true)
            let telling = lines.filter { !$0.contains("\"rpc.code\":\"OK\"") && !$0.contains("rpc.code=OK") }
            text += "\(service) log (\(lines.count - telling.count) successful calls left out):\n"
            text += telling.suffix(25).joined(separator: "\n") + "\n"
        }
        return text
    }

    /// Takes the deployment down (containers, network, volumes) and returns what is left of
    /// the project afterwards: containers, networks and volumes by podman-compose's label. The
    /// fake APNs and the run's folder go too.
    @discardableResult
    package func stop() async throws -> [String] {
        defer { try? FileManager.default.removeItem(at: directory) }
        await pushes.stop()
        try await compose(["down", "-v", "-t", "15"], timeout: .seconds(120))
        // podman-compose 1.0.6 (the newest whose `up` works with Debian 12's podman 4.3) leaves
        // the project's network behind.
        let label = "label=io.podman.compose.project=\(project)"
        for network in try await podman(["network", "ls", "--filter", label, "--format", "{{.Name}}"], timeout: .seconds(30))
            .split(separator: "\n") {
            try await podman(["network", "rm", String(network)], timeout: .seconds(30))
        }
        var left: [String] = []
        for (kind, arguments) in [("container", ["ps", "-a", "--filter", label, "--format", "{{.Names}}"]),
                                  ("network", ["network", "ls", "--filter", label, "--format", "{{.Name}}"]),
                                  ("volume", ["volume", "ls", "--filter", label, "--format", "{{.Name}}"])] {
            let output = try await podman(arguments, timeout: .seconds(30))
            left += output.split(separator: "\n").map { "\(kind) \($0)" }
        }
        return left
    }

    private func waitUntilHealthy(_ service: String, deadline: ContinuousClock.Instant) async throws {
        var last = ""
        while ContinuousClock.now < deadline {
            let result = try await Subprocess.run("/usr/bin/podman", ["healthcheck", "run", container(service)],
                                                  environment: environment, timeout: .seconds(30))
            if result.exitCode == 0 { return }
            last = result.output
            try await Task.sleep(for: .milliseconds(500))
        }
        throw SubprocessError(message: "\(service) did not become healthy: \(last)")
    }

    /// grpc.health.v1 through the edge over TLS with the `rendezvous` CLI, as an operator checks it.
    private func waitUntilEdgeAnswers(deadline: ContinuousClock.Instant) async throws {
        let cli = try RepositoryPaths.builtExecutable("rendezvous")
        var last = ""
        while ContinuousClock.now < deadline {
            let result = try await Subprocess.run(cli, ["health", "--address", "127.0.0.1:\(edgePort)", "--ca-file", caFile],
                                                  timeout: .seconds(15))
            if result.exitCode == 0 { return }
            last = result.output
            try await Task.sleep(for: .milliseconds(500))
        }
        throw SubprocessError(message: "the edge did not answer health: \(last)")
    }

    @discardableResult
    private func compose(_ arguments: [String], timeout: Duration) async throws -> String {
        var files: [String] = []
        for file in composeFiles { files += ["-f", file] }
        let result = try await Subprocess.run("/usr/bin/env", ["podman-compose", "-p", project] + files + arguments,
                                              environment: environment, timeout: timeout)
        guard result.exitCode == 0 else {
            throw SubprocessError(message: "podman-compose \(arguments.joined(separator: " ")) exited \(result.exitCode): "
                                  + String(result.output.suffix(4000)))
        }
        return result.output
    }

    @discardableResult
    private func podman(_ arguments: [String], timeout: Duration) async throws -> String {
        let result = try await Subprocess.run("/usr/bin/podman", arguments, environment: environment, timeout: timeout)
        guard result.exitCode == 0 else {
            throw SubprocessError(message: "podman \(arguments.joined(separator: " ")) exited \(result.exitCode): \(result.output)")
        }
        return result.output
    }
}
