#if canImport(Glibc)
import Glibc
#endif
package import Foundation
import Synchronization

/// Every Rendezvous executable on the local Postgres behind one nginx edge, wired as
/// `compose/local/run.sh` wires them, with `instances` of each service behind the edge (an
/// upstream of several servers per route): what a user's journey crosses. Every service accepts
/// every other's credential; each follows the first instance of the services it follows (any
/// instance serves the same event streams). With `push`, messaging sends to a `FakeAPNs` the
/// stack owns. Executables come from `RepositoryPaths.builtExecutable`: beside the running
/// binary first, so a release benchmark gets release services.
package final class JourneyStack: Sendable {
    package static let services = ["identity", "discovery", "production", "messaging", "media"]
    static let secrets = Dictionary(uniqueKeysWithValues: services.map { ($0, "journeys-\($0)-secret-0123456789abcdef") })
    static let urlSecret = "journeys-media-url-secret-0123456789abcdefgh"

    /// Each service's instances, in start order (an instance `restart` started replaces its
    /// predecessor at the same index).
    package var processes: [String: [EndToEndServiceProcess]] { running.withLock { $0 } }
    private let running: Mutex<[String: [EndToEndServiceProcess]]>
    /// Each instance's environment (its port included), by service and index: what `restart` starts it with.
    private let settings: [String: [[String: String]]]
    /// Routes every service's package (and media's signed downloads) to its instances.
    package let edge: NginxEdge
    /// Where messaging's pushes go, when started with `push`.
    package let apns: FakeAPNs?
    /// The folder media keeps blobs in (`blobs/ab/cd/<sha256>`), shared with `MediaStack`.
    package let mediaStorage: String
    private let directory: URL

    private init(processes: [String: [EndToEndServiceProcess]], settings: [String: [[String: String]]], edge: NginxEdge,
                 apns: FakeAPNs?, mediaStorage: String, directory: URL) {
        self.running = Mutex(processes)
        self.settings = settings
        self.edge = edge
        self.apns = apns
        self.mediaStorage = mediaStorage
        self.directory = directory
    }

    /// Starts `instances` of each service (all at once) and the edge; `environment` adds to every
    /// service's settings (e.g. `RV_OTLP_ENDPOINT`), `messagingEnvironment` to messaging's (e.g.
    /// shorter encounter durations). `quickJobs` runs media's
    /// reveal, rendition and sweep jobs every 50-100 ms and messaging's push polls every 20 ms,
    /// so tests need not wait; a benchmark of the deployment as shipped turns it off (their defaults).
    /// `serviceEnvironment` adds to one service's settings by its name (e.g. media's blob store). Fails with the db.sh hint
    /// when Postgres is down, and stops whatever it started when anything fails.
    package static func start(instances: Int = 1, push: Bool = true, environment shared: [String: String] = [:],
                              messagingEnvironment: [String: String] = [:], quickJobs: Bool = true,
                              serviceEnvironment extra: [String: [String: String]] = [:]) async throws -> JourneyStack {
        try await TestDatabase.makePool(TestDatabase.configuration(role: "identity", poolSize: 1)).close()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-journeys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Services follow each other in a cycle (identity follows production, production
        // messaging, messaging production), so every port is chosen before anything starts.
        var chosen: [String: [Int]] = [:]
        for service in services { chosen[service] = try (0..<instances).map { _ in try LocalPort.free() } }
        let ports = chosen
        let mediaAdminPorts = try (0..<instances).map { _ in try LocalPort.free() }
        let apns = push ? try FakeAPNs() : nil
        var messaging = messagingEnvironment
        if let apns {
            do {
                var push = try apns.messagingEnvironment(directory: directory.appendingPathComponent("apns"))
                if !quickJobs {
                    // The push workers' and followers' polls and retries at their shipped intervals.
                    push["RV_PUSH_POLL_INTERVAL_MS"] = nil
                    push["RV_APNS_BACKOFF_MS"] = nil
                }
                messaging.merge(push) { given, _ in given }
            } catch {
                await apns.stop()
                throw error
            }
        }
        // MediaStack's folder: every media on this database may render or delete any blob.
        let storage = MediaStack.retainSharedStorage()
        let address = { (service: String) in "127.0.0.1:\(ports[service]![0])" }  // every service has an entry
        let credentials = services.map { "\($0)=\(secrets[$0]!)" }.joined(separator: ",")  // every service has a secret
        let common = { (service: String) -> [String: String] in
            ["RV_\(service.uppercased())_ADMIN_PORT": "0", "RV_PG_URL_\(service.uppercased())": DiscoveryStack.postgresURL(role: service),
             "RV_LOG_LEVEL": "warning", "RV_SERVICE_NAME": service, "RV_SERVICE_SECRET": secrets[service]!,
             "RV_SERVICE_CREDENTIALS": credentials, "RV_IDENTITY_ADDRESS": address("identity")].merging(shared) { _, given in given }
        }
        let specific: [String: [String: String]] = [
            "identity": ["RV_PRODUCTION_ADDRESS": address("production")],
            "discovery": [:],
            "production": ["RV_DISCOVERY_ADDRESS": address("discovery"), "RV_MESSAGING_ADDRESS": address("messaging")],
            "messaging": messaging.merging(["RV_DISCOVERY_ADDRESS": address("discovery"), "RV_PRODUCTION_ADDRESS": address("production"),
                                            "RV_MEDIA_ADDRESS": address("media")]) { given, _ in given },
            "media": ["RV_MEDIA_STORAGE_DIR": storage, "RV_MEDIA_URL_SECRET": urlSecret].merging(
                quickJobs ? ["RV_MEDIA_REVEAL_INTERVAL_MS": "50", "RV_MEDIA_SWEEP_INTERVAL_MS": "100", "RV_MEDIA_RENDITION_INTERVAL_MS": "50"]
                          : [:]) { given, _ in given },
        ]
        var launchSettings: [String: [[String: String]]] = [:]
        for service in services {
            for instance in 0..<instances {
                var environment = common(service).merging(specific[service] ?? [:]) { _, given in given }
                    .merging(extra[service] ?? [:]) { _, given in given }
                environment["RV_\(service.uppercased())_PORT"] = String(ports[service]![instance])
                if service == "media" { environment["RV_MEDIA_ADMIN_PORT"] = String(mediaAdminPorts[instance]) }
                launchSettings[service, default: []].append(environment)
            }
        }
        let allSettings = launchSettings
        let started = await withTaskGroup(of: Launch.self) { group in
            for service in services {
                for instance in 0..<instances {
                    let settings = allSettings[service]![instance]  // one entry per service and instance, made above
                    group.addTask {
                        do {
                            return Launch(service: service, instance: instance,
                                          process: try await EndToEndServiceProcess.start(service, environment: settings))
                        } catch {
                            return Launch(service: service, instance: instance, error: "\(error)")
                        }
                    }
                }
            }
            var launches: [Launch] = []
            for await launch in group { launches.append(launch) }
            return launches
        }
        var processes: [String: [EndToEndServiceProcess]] = [:]
        for launch in started.sorted(by: { ($0.service, $0.instance) < ($1.service, $1.instance) }) {
            if let process = launch.process { processes[launch.service, default: []].append(process) }
        }
        func stopAll() async {
            for process in processes.values.joined() { await process.stop() }
            await apns?.stop()
            MediaStack.releaseSharedStorage()
            try? FileManager.default.removeItem(at: directory)
        }
        var failures = started.compactMap(\.error)
        if started.count != services.count * instances {
            failures.append("started \(started.count) of \(services.count * instances) processes")
        }
        if let failure = failures.first {
            await stopAll()
            throw SubprocessError(message: failure)
        }
        do {
            let routes = Dictionary(uniqueKeysWithValues: services.map { service in
                ("/rendezvous.\(service).", (processes[service] ?? []).map(\.port))
            })
            let edge = try await NginxEdge.start(upstreams: routes, httpUpstreams: ["/media/v1/blobs/": mediaAdminPorts])
            return JourneyStack(processes: processes, settings: allSettings, edge: edge, apns: apns, mediaStorage: storage,
                                directory: directory)
        } catch {
            await stopAll()
            throw error
        }
    }

    /// One process's start: the process, or why it did not start.
    private struct Launch: Sendable {
        var service: String
        var instance: Int
        var process: EndToEndServiceProcess?
        var error: String?
    }

    /// Every process of the stack with its pid, the edge's master and worker included (for
    /// their memory figures).
    package var pids: [(name: String, pid: Int32)] {
        var all: [(String, Int32)] = []
        for service in Self.services {
            for (index, process) in (processes[service] ?? []).enumerated() { all.append(("\(service)-\(index + 1)", process.pid)) }
        }
        all.append(("nginx", edge.pid))
        let children = (try? String(contentsOfFile: "/proc/\(edge.pid)/task/\(edge.pid)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({ Int32($0) }) { all.append(("nginx-worker", child)) }
        return all
    }

    /// Gives `role` to `accountID` in `app` with `identity grant-role`, as an operator would.
    package func grantRole(_ role: String, to accountID: String, app: String) async throws {
        let result = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", app, "--account-id", accountID, "--role", role],
            environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
        guard result.exitCode == 0 else {
            throw SubprocessError(message: "identity grant-role exited \(result.exitCode): \(result.output)")
        }
    }

    /// Starts instance `index` of `service` again on its port with its environment, after it
    /// crashed (`EndToEndServiceProcess.kill`): the edge's upstream finds it where it was.
    package func restart(_ service: String, _ index: Int) async throws {
        guard let environment = settings[service]?[index] else {
            throw SubprocessError(message: "the stack has no instance \(index) of \(service)")
        }
        let process = try await EndToEndServiceProcess.start(service, environment: environment)
        let replaced = running.withLock { running in
            let old = running[service]![index]  // settings and processes hold the same instances
            running[service]![index] = process
            return old
        }
        await replaced.stop(grace: .zero)
    }

    /// Every process's log, for a failure's report.
    package var logs: String {
        Self.services.flatMap { service in
            (processes[service] ?? []).enumerated().map { "\(service) \($0.offset + 1) log:\n\($0.element.log)\n" }
        }.joined()
    }

    package func stop() async {
        edge.stop()
        await withTaskGroup(of: Void.self) { group in
            for process in processes.values.joined() { group.addTask { await process.stop() } }
        }
        await apns?.stop()
        MediaStack.releaseSharedStorage()
        try? FileManager.default.removeItem(at: directory)
    }
}
