import Foundation
import GatewayClient
import Journeys
import TestSupport

/// `journeys-bench`: the five products' journeys (Tests/Journeys) at once, `--users` virtual
/// users each looping one journey for `--duration` seconds, through the nginx edge of a
/// `JourneyStack` with `--instances` of every service (the executables beside this one: release
/// ones from `.build/release`) on the Postgres of RV_PG_PORT. Prints journeys/s and calls/s,
/// p50/p99 per RPC method, every non-OK answer by method, status and reason (the refusals the
/// journeys ask for apart from the rest) and each process's peak memory (VmHWM).
@main
struct JourneysBenchMain {
    static func main() async {
        var options = Options()
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            FileHandle.standardError.write(Data("\(error)\n\(Options.usage)\n".utf8))
            exit(2)
        }
        do {
            try await run(options)
        } catch {
            FileHandle.standardError.write(Data("journeys-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: Options) async throws {
        let stack = try await JourneyStack.start(instances: options.instances, messagingEnvironment: JourneyCatalog.messagingEnvironment)
        let recorder = Recorder()
        do {
            try await ProductionStack.clearOldTestRuns()
            let context = JourneyContext(stack: stack, observer: { recorder.call($0, $1, $2) }, patience: .seconds(60),
                                         revealDelay: 10)
            print("journeys-bench: \(options.journeys.joined(separator: ", ")) × \(options.users) virtual users each for "
                  + "\(options.duration) s through the edge, \(options.instances) instance(s) per service", terminator: "\n")
            let clock = ContinuousClock()
            let start = clock.now
            let end = start + .seconds(options.duration)
            await withTaskGroup(of: Void.self) { group in
                for name in options.journeys {
                    guard let journey = JourneyCatalog.all[name] else { continue }
                    for _ in 0..<options.users {
                        group.addTask {
                            while clock.now < end {
                                let began = clock.now
                                do {
                                    try await journey(context)
                                    recorder.journey(name, clock.now - began, failure: nil)
                                } catch {
                                    recorder.journey(name, clock.now - began, failure: "\(error)")
                                }
                            }
                        }
                    }
                }
            }
            let elapsed = clock.now - start
            print(recorder.report(elapsed: elapsed, memory: peakMemory(stack)))
            if recorder.failedJourneys > 0 {
                // The services' logs go with the stack: keep them for the failures' story.
                let file = NSTemporaryDirectory() + "journeys-bench-\(getpid())-services.log"
                try? stack.logs.write(toFile: file, atomically: true, encoding: .utf8)
                print("the services' logs (warnings and errors): \(file)")
            }
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// Each process's peak resident set (VmHWM), this one's included.
    static func peakMemory(_ stack: JourneyStack) -> [(String, Int)] {
        (stack.pids + [("journeys-bench (client)", getpid())]).map { ($0.0, highWaterKiB(pid: $0.1)) }
    }

    static func highWaterKiB(pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst("VmHWM:".count).filter(\.isNumber)) ?? 0
        }
        return 0
    }
}

/// The command line.
struct Options {
    var duration = 180
    var users = 2
    var instances = 2
    var journeys = ["elite", "firstdate", "swivo", "unseen", "momento"]

    static let usage = "usage: journeys-bench [--duration SECONDS] [--users N] [--instances N] [--journeys elite,firstdate,...]"

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init() {}

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw Invalid(description: "\(flag) needs a value") }
            switch flag {
            case "--duration": duration = try Self.positive(value, flag)
            case "--users": users = try Self.positive(value, flag)
            case "--instances": instances = try Self.positive(value, flag)
            case "--journeys":
                journeys = value.split(separator: ",").map(String.init)
                guard journeys.allSatisfy({ JourneyCatalog.all[$0] != nil }) else {
                    throw Invalid(description: "--journeys takes \(JourneyCatalog.all.keys.sorted().joined(separator: ","))")
                }
            default: throw Invalid(description: "unknown option \(flag)")
            }
        }
    }

    static func positive(_ value: String, _ flag: String) throws -> Int {
        guard let number = Int(value), number > 0 else { throw Invalid(description: "\(flag) takes a positive number") }
        return number
    }
}
