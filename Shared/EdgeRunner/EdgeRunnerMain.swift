#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Runtime

/// `rendezvous-edge`: the edge container's entry point (compose/Dockerfile, stage edge).
///
///     rendezvous-edge --config FILE --prefix DIR [--nginx PATH] [--every SECONDS] [--metrics ADDR:PORT]
///
/// nginx resolves an upstream's host name once, when it loads its configuration, and the open
/// source nginx cannot resolve it again; in compose a restarted service comes back at another
/// address, and a stopped one keeps being dialled until a connect times out. This runs nginx
/// (`-p DIR -c DIR/nginx.conf`) on FILE with its upstream names resolved here (`EdgeUpstreams`),
/// resolves them again every SECONDS (2), and when an answer changes writes the configuration
/// anew and reloads nginx (SIGHUP: new workers, the old ones finish their calls). SIGTERM, SIGINT
/// and SIGQUIT go to nginx; this exits with nginx's status.
///
/// With `--metrics ADDR:PORT` it also counts nginx's responses and serves them to Prometheus:
/// the configuration (render.sh `--metrics-port PORT`) logs each response over syslog to UDP
/// 127.0.0.1:PORT, read here (`EdgeLogReceiver`), and an HTTP/1.1 admin listener on TCP ADDR:PORT,
/// the services' own (`AdminServer`), answers `/metrics` (`edge_responses_total`), `/healthz`
/// and `/readyz`.
@main
struct EdgeRunnerMain {
    static func main() {
        var config = "", prefix = "", nginx = "/usr/local/bin/nginx", every = 2.0, metricsAddress = ""
        var arguments = CommandLine.arguments.dropFirst()
        while let option = arguments.popFirst() {
            guard let value = arguments.popFirst() else { fail("\(option) needs a value") }
            switch option {
            case "--config": config = value
            case "--prefix": prefix = value.hasSuffix("/") ? value : value + "/"
            case "--nginx": nginx = value
            case "--every": every = Double(value).flatMap { $0 > 0 ? $0 : nil } ?? 0
            case "--metrics": metricsAddress = value
            default: fail("unknown option \(option)")
            }
        }
        guard !config.isEmpty, !prefix.isEmpty, every > 0 else {
            fail("usage: rendezvous-edge --config FILE --prefix DIR [--nginx PATH] [--every SECONDS] [--metrics ADDR:PORT]")
        }
        guard let template = try? String(contentsOfFile: config, encoding: .utf8) else { fail("cannot read \(config)") }
        let readiness = Readiness()
        var admin: AdminServer?
        if !metricsAddress.isEmpty {
            do {
                admin = try startMetrics(metricsAddress, config: template, readiness: readiness)
            } catch {
                fail("\(error)")
            }
        }
        let rendered = prefix + "nginx.conf"
        let current = EdgeUpstreams.render(template, resolve: EdgeUpstreams.systemResolve)
        write(current, to: rendered)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-e", "stderr", "-p", prefix, "-c", rendered]
        process.terminationHandler = { exit($0.terminationStatus) }
        do {
            try process.run()
        } catch {
            fail("cannot start \(nginx): \(error)")
        }
        let pid = process.processIdentifier
        readiness.markServing()

        // Both run on `queue`, never at once; @Sendable keeps them off the main actor's isolation.
        let queue = DispatchQueue(label: "rendezvous-edge")
        var sources: [any DispatchSourceProtocol] = []
        for signalNumber in [SIGTERM, SIGINT, SIGQUIT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { @Sendable in kill(pid, signalNumber) }
            source.resume()
            sources.append(source)
        }
        let state = RenderedConfiguration(template: template, path: rendered, current: current)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + every, repeating: every)
        timer.setEventHandler { @Sendable in
            guard state.renderAgain() else { return }
            log("an upstream's addresses changed; reloading nginx")
            kill(pid, SIGHUP)
        }
        timer.resume()
        sources.append(timer)
        withExtendedLifetime((sources, admin)) { dispatchMain() }
    }

    /// Binds the log socket (UDP 127.0.0.1:PORT) and the admin listener (TCP ADDR:PORT) and starts
    /// both; fails when the configuration does not send its metrics log to that port.
    static func startMetrics(_ address: String, config: String, readiness: Readiness) throws -> AdminServer {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (1...65535).contains(port) else {
            throw EdgeRunnerError("--metrics ADDR:PORT, not \(address)")
        }
        guard config.contains("syslog:server=127.0.0.1:\(port),") else {
            throw EdgeRunnerError("the configuration logs no metrics to 127.0.0.1:\(port) (render.sh --metrics-port \(port))")
        }
        let metrics = EdgeMetrics()
        let receiver = try EdgeLogReceiver(port: port)
        let admin = try AdminServer(host: String(address[..<colon]), port: port,
                                    routes: AdminRoutes(metrics: metrics.metrics, readiness: readiness))
        try admin.start()
        receiver.start { metrics.record($0) }
        return admin
    }

    /// Writes `text` to `path` through a temporary file and a rename, so nginx never reads half of it.
    static func write(_ text: String, to path: String) {
        let temporary = path + ".next"
        do {
            try text.write(toFile: temporary, atomically: false, encoding: .utf8)
            guard rename(temporary, path) == 0 else { fail("cannot rename \(temporary): \(String(cString: strerror(errno)))") }
        } catch {
            fail("cannot write \(temporary): \(error)")
        }
    }

    static func log(_ message: String) {
        FileHandle.standardError.write(Data("rendezvous-edge: \(message)\n".utf8))
    }

    static func fail(_ message: String) -> Never {
        log(message)
        exit(2)
    }
}

/// The configuration nginx runs, rendered anew on each tick of rendezvous-edge's timer.
final class RenderedConfiguration: @unchecked Sendable {
    // @unchecked Sendable: `current` is read and written only by the timer's handler, which
    // its serial queue runs one at a time.
    private let template: String
    private let path: String
    private var current: String

    init(template: String, path: String, current: String) {
        self.template = template
        self.path = path
        self.current = current
    }

    /// Resolves the names again; writes the configuration and returns true when it changed.
    func renderAgain() -> Bool {
        let next = EdgeUpstreams.render(template, resolve: EdgeUpstreams.systemResolve)
        guard next != current else { return false }
        current = next
        EdgeRunnerMain.write(next, to: path)
        return true
    }
}
