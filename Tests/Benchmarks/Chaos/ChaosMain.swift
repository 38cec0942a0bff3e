import Foundation
import GatewayClient
import Journeys
import TestSupport

/// `chaos`: the apps' writes under load through the nginx edge of a `JourneyStack` with two
/// instances of every service, while a printed schedule of faults hits it (`FaultSchedule`);
/// then the audit of every acknowledged write against the database, the realtime streams and
/// the fake APNs (`Audit`) and the recovery after each fault (`Probes`). Exits 1 when any
/// acknowledged write was lost or any write duplicated. Postgres is the cluster of RV_PG_PORT,
/// which it stops and starts with compose/local/db.sh (RV_DATA_DIR): give it a cluster of its
/// own (Tests/Benchmarks/chaos.py does).
@main
struct ChaosMain {
    static func main() async {
        let options: Options
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            FileHandle.standardError.write(Data("\(error)\n\(Options.usage)\n".utf8))
            exit(2)
        }
        do {
            exit(try await run(options) ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("chaos: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: Options) async throws -> Bool {
        let schedule = FaultSchedule(duration: options.duration, instances: options.instances, seed: options.seed)
        say(schedule)
        let dependencies = try await SlowDependencies.start()
        defer { dependencies.stop() }
        let stack = try await JourneyStack.start(instances: options.instances, messagingEnvironment: dependencies.messagingEnvironment,
                                                 serviceEnvironment: ["media": dependencies.mediaEnvironment])
        let book = CallBook()
        do {
            let passed = try await run(options, schedule: schedule, stack: stack, dependencies: dependencies, book: book)
            if !passed {
                let file = NSTemporaryDirectory() + "chaos-\(getpid())-services.log"
                try? stack.logs.write(toFile: file, atomically: true, encoding: .utf8)
                say("the services' logs: \(file)")
            }
            await stack.stop()
            return passed
        } catch {
            say(stack.logs)
            await stack.stop()
            throw error
        }
    }

    static func run(_ options: Options, schedule: FaultSchedule, stack: JourneyStack, dependencies: SlowDependencies,
                    book: CallBook) async throws -> Bool {
        let population = try await Population.make(stack: stack, book: book)
        defer { population.moderator.close() }
        let chat = try await ChatLoad.prepare(population, pairs: options.pairs)
        defer { chat.close() }
        let ledger = try await LedgerLoad.prepare(population)
        defer { ledger.close() }
        let consent = try await ConsentLoad.prepare(population)
        defer { consent.close() }
        let probes = try await Probes.make(population)
        defer { probes.close() }
        let matches = MatchLoad(population: population)
        defer { matches.close() }
        let groups = GroupLoad(population: population)
        let encounters = EncounterLoad(population: population)
        let injector = FaultInjector(stack: stack, dependencies: dependencies)

        say("chaos: load for \(options.duration) s: \(options.pairs) chatting pairs, new matches, Swivo races, Momento guests, "
              + "ledger entries, consent records, Unseen encounters' points; \(options.instances) instances per service behind the edge")
        let start = ContinuousClock.now
        let end = start + .seconds(options.duration)
        let probeEnd = end + .seconds(15)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await chat.run(until: end, interval: .milliseconds(500)) }
            group.addTask { await matches.run(until: end, interval: .seconds(2)) }
            group.addTask { await groups.runSwivo(until: end, interval: .seconds(2)) }
            group.addTask { await groups.runMomento(until: end, interval: .seconds(3)) }
            group.addTask { await ledger.run(until: end, interval: .seconds(1)) }
            group.addTask { await consent.run(until: end, interval: .seconds(1)) }
            group.addTask { await encounters.run(until: end, interval: .seconds(2)) }
            group.addTask { await injector.run(schedule, from: start) }
            group.addTask { await probes.run(until: probeEnd) }
        }
        let resent = await chat.resendFailed()
        let rematched = await matches.retryFailed()
        guard let apns = stack.apns else { throw ChaosFailure("the stack pushes nowhere") }
        let settled = await settle(chat: chat, matches: matches, apns: apns)
        let audit = try await Audit.run(chat: chat, matches: matches, groups: groups, ledger: ledger, consent: consent,
                                        encounters: encounters, apns: apns)
        say(Report(duration: options.duration, faults: injector.all, probes: probes, book: book, audit: audit,
                   retried: resent + rematched, settled: settled).text)
        return audit.lost == 0 && audit.duplicated == 0
    }

    /// Waits (up to 150 s) until every acknowledged message reached its receiver's stream
    /// and every push the audit expects was delivered; how long that took.
    static func settle(chat: ChatLoad, matches: MatchLoad, apns: FakeAPNs) async -> Duration {
        let began = ContinuousClock.now
        // A push job leased by an instance that crashed (or met Postgres restarting) waits out
        // its lease (PushSettings.lease, 120 s) before another instance sends it.
        let deadline = began + .seconds(150)
        while ContinuousClock.now < deadline {
            let delivered = Set(apns.allRequests.filter { $0.status == 200 }.map { "\($0.deviceToken) \($0.collapseID ?? "")" })
            let arrivals = chat.arrivals
            let messagesDone = chat.messages.allSatisfy { message in
                guard let id = message.messageID else { return true }
                return arrivals[message.clientMessageID] != nil
                    && delivered.contains("\(chat.pairs[message.pair].receiver.deviceToken.lowercased()) \(id)")
            }
            let matchesDone = matches.all.allSatisfy { attempt in
                guard let id = attempt.matchID else { return true }
                return [attempt.a, attempt.b].allSatisfy { delivered.contains("\($0.deviceToken.lowercased()) match-\(id)") }
            }
            if messagesDone && matchesDone { break }
            try? await Task.sleep(for: .milliseconds(200))
        }
        // Anything sent twice would come now: a moment more before counting.
        try? await Task.sleep(for: .seconds(2))
        return ContinuousClock.now - began
    }
}

/// The command line.
struct Options {
    var duration = 600
    var instances = 2
    var pairs = 4
    var seed = UInt64.random(in: 1...999_999)

    static let usage = "usage: chaos [--duration SECONDS (>= \(FaultSchedule.minimumDuration))] [--instances N] [--pairs N] [--seed N]"

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst(), let number = Int(value), number > 0 else {
                throw Invalid(description: "\(flag) takes a positive number")
            }
            switch flag {
            case "--duration":
                guard number >= FaultSchedule.minimumDuration else { throw Invalid(description: "--duration is at least \(FaultSchedule.minimumDuration)") }
                duration = number
            case "--instances":
                guard number >= 2 else { throw Invalid(description: "--instances is at least 2 (one serves while the other is down)") }
                instances = number
            case "--pairs": pairs = number
            case "--seed": seed = UInt64(number)
            default: throw Invalid(description: "unknown option \(flag)")
            }
        }
    }
}

/// Writes `text` and a newline to standard output at once (print buffers into a pipe or a file).
func say(_ text: some CustomStringConvertible) {
    FileHandle.standardOutput.write(Data((text.description + "\n").utf8))
}
