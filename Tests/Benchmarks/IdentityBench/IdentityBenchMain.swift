#if canImport(Glibc)
import Glibc
#endif
import Auth
import Contracts
import Foundation
import RPC
import TestSupport

/// `identity-bench`: a load generator for a running identity service. It speaks gRPC through
/// our own client because the refresh workload must spend each single-use refresh token
/// exactly once per request, which a fixed-body tool such as h2load cannot. Prints a table of
/// throughput and latency percentiles per workload and stream count, then `N passed, M failed`
/// (a run fails when any of its requests did). `make bench` runs it through identity_bench.py.
@main
struct IdentityBenchMain {
    static func main() async {
        let options: BenchOptions
        do {
            options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("identity-bench: \(error)\n".utf8))
            exit(2)
        }
        let connections = (0..<options.connections).map { _ in RPCClient(host: options.host, port: options.port) }
        defer { connections.forEach { $0.close() } }
        let runner = LoadRunner(clients: connections.map { IdentityClient(client: $0) })
        let discovery = options.discoveryPort.map { port in
            (0..<options.connections).map { _ in RPCClient(host: options.host, port: port) }
        } ?? []
        defer { discovery.forEach { $0.close() } }
        let oneSession = OneSessionLikes()
        let available = IdentityWorkloads.all
            + (discovery.isEmpty ? [] : DiscoveryWorkloads.all(discovery: discovery, app: options.discoveryApp)
                + [await oneSession.workload(discovery: discovery, app: options.discoveryApp)])
        let workloads = available.filter { workload in
            options.only.isEmpty || options.only.contains { workload.name.contains($0) }
        }

        do {
            if options.warmupSeconds > 0 {
                _ = try await runner.run(IdentityWorkloads.getAccount, streams: 16, seconds: options.warmupSeconds)
                _ = try await runner.run(IdentityWorkloads.anonymousSignIn, streams: 16, seconds: options.warmupSeconds)
            }
        } catch {
            FileHandle.standardError.write(Data("identity-bench: warm-up failed: \(error)\n".utf8))
            exit(1)
        }

        print("identity at \(options.host):\(options.port), \(options.seconds) s per run, \(options.connections) connections, "
              + "\(ProcessInfo.processInfo.activeProcessorCount) cores (server, Postgres and this load generator share them)")
        print(Row.header)
        var passed = 0
        var failed = 0
        for workload in workloads {
            for streams in workload.isHashing ? [options.hashingStreams] : options.streamCounts {
                let serverBefore = ProcessCPU.seconds(pid: options.serverPID)
                let benchBefore = ProcessCPU.seconds(pid: nil)
                let outcome: LoadRunner.Outcome
                do {
                    outcome = try await runner.run(workload, streams: streams, seconds: options.seconds)
                } catch {
                    print("\(workload.name) at \(streams) streams could not start: \(error)")
                    failed += 1
                    continue
                }
                let share = { (before: Double?, after: Double?) -> Double? in
                    guard let before, let after else { return nil }
                    return 100 * (after - before) / outcome.summary.seconds
                }
                print(Row(workload: workload.name, streams: streams, summary: outcome.summary,
                          serverCPU: share(serverBefore, ProcessCPU.seconds(pid: options.serverPID)),
                          benchCPU: share(benchBefore, ProcessCPU.seconds(pid: nil))).text)
                if let error = outcome.firstError {
                    print("    first failure: \(error)")
                }
                if outcome.summary.failed == 0 && outcome.summary.succeeded > 0 { passed += 1 } else { failed += 1 }
            }
        }
        if let race = await oneSession.finish(discovery: discovery) {
            print(race)
            if race.hasSuffix("passed") { passed += 1 } else { failed += 1 }
        }
        if options.catchUpEvents > 0 {
            do {
                guard let url = options.postgresURL, let credential = options.serviceCredential,
                      let colon = credential.firstIndex(of: ":") else {
                    throw BenchOptions.Invalid(description: "--catch-up-events needs --postgres-url and --service-credential NAME:SECRET")
                }
                let bench = CatchUpBench(identityPort: options.port, postgresURL: url,
                                         credential: try ServiceCredential(name: String(credential[..<colon]),
                                                                           secret: String(credential[credential.index(after: colon)...])),
                                         events: options.catchUpEvents)
                print("\nevent consumer catching up on identity's latest events (one statement applied per event)")
                print("batch limit     events   seconds   events/s")
                for limit in [1, 256] {
                    let result = try await bench.run(batchLimit: limit)
                    print(String(format: "%11d %10d %9.2f %10.0f", limit, result.events, result.seconds, result.perSecond))
                }
                passed += 1
            } catch {
                print("event catch-up failed: \(error)")
                failed += 1
            }
        }
        if let messagingPort = options.messagingPort {
            // 50 streams a connection (the server allows 100 concurrent streams on one), at least 20.
            let messagingConnections = max(20, (options.messagingMembers + 49) / 50)
            let messaging = (0..<messagingConnections).map { _ in RPCClient(host: options.host, port: messagingPort) }
            defer { messaging.forEach { $0.close() } }
            do {
                guard let adminURL = options.adminURL else {
                    throw BenchOptions.Invalid(description: "--messaging-port needs --admin-url to seed conversations")
                }
                let bench = RealtimeFanOutBench(identity: connections.map { IdentityClient(client: $0) }, messaging: messaging,
                                                adminURL: adminURL, app: "swivo", members: options.messagingMembers,
                                                seconds: options.seconds)
                let results = try await bench.run(senderCounts: options.messagingSenders, serverPID: options.messagingPID,
                                                  postgresPID: options.postgresPID)
                print("\nmessaging: send -> delivery on the recipient's realtime stream, \(options.messagingMembers) streams open "
                      + "over \(messagingConnections) connections (our client); Postgres CPU: the whole cluster's processes")
                print("senders   msgs/s   accepted  fail  delivered  lost  dup  disorder   p50 ms   p99 ms   max ms  srv CPU   pg CPU  gen CPU")
                for result in results {
                    print(String(format: "%7d %8.0f %10d %5d %10d %5d %4d %9d %8.2f %8.2f %8.2f", result.senders,
                                 Double(result.accepted) / result.seconds, result.accepted, result.failed, result.delivered,
                                 result.undelivered, result.duplicated, result.outOfOrder, result.latency.p50,
                                 result.latency.p99, result.latency.max)
                          + (result.serverCPU.map { String(format: " %7.0f%%", $0) } ?? "       -")
                          + (result.postgresCPU.map { String(format: " %7.0f%%", $0) } ?? "       -")
                          + (result.clientCPU.map { String(format: " %7.0f%%", $0) } ?? "       -"))
                    if let error = result.firstError { print("    first failure: \(error)") }
                    if result.failed == 0 && result.undelivered == 0 && result.duplicated == 0 && result.outOfOrder == 0
                        && result.accepted > 0 { passed += 1 } else { failed += 1 }
                }
            } catch {
                print("messaging fan-out failed: \(error)")
                failed += 1
            }
        }
        print("\(passed) passed, \(failed) failed")
        exit(failed == 0 ? 0 : 1)
    }
}

/// One line of the results table.
struct Row {
    static let header = "workload                  streams     req/s       ok  fail   p50 ms   p99 ms   max ms  srv CPU  gen CPU"

    var workload: String
    var streams: Int
    var summary: LatencySummary
    var serverCPU: Double?
    var benchCPU: Double?

    var text: String {
        func percent(_ value: Double?) -> String {
            value.map { String(format: "%7.0f%%", $0) } ?? "       -"
        }
        return workload.padding(toLength: 25, withPad: " ", startingAt: 0)
            + String(format: " %7d %9.0f %8d %5d %8.2f %8.2f %8.2f", streams, summary.requestsPerSecond, summary.succeeded,
                     summary.failed, summary.p50, summary.p99, summary.max)
            + " " + percent(serverCPU) + " " + percent(benchCPU)
    }
}
