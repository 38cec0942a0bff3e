import Foundation
import Journeys
import TestSupport

/// `capacity-bench`: how many concurrently active users one box holds at the service levels.
/// It starts a `JourneyStack` (`--instances` of every service behind the nginx edge, the
/// executables beside this one), brings users in (`World`) and runs the user model (`UserModel`)
/// open-loop (`OpenLoop`) in steps of `--step-seconds`, from `--start-users` growing by
/// `--growth` until a step breaks a service level (`LatencyBook`) or `--max-users` holds. Then
/// it prints the most users held with that step's per-action p50/p99/p99.9, CPU per user-minute
/// per service and for Postgres, and the five actions that cost the most CPU in all (each
/// action's cost measured alone afterwards, `Calibration`).
@main
struct CapacityBenchMain {
    static func main() async {
        let options: Options
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            FileHandle.standardError.write(Data("\(error)\n\(Options.usage)\n".utf8))
            exit(2)
        }
        do {
            try await run(options)
        } catch {
            FileHandle.standardError.write(Data("capacity-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: Options) async throws {
        let stack = try await JourneyStack.start(instances: options.instances, quickJobs: false)
        do {
            try await SeededProfiles.ensure(options.seededProfiles)  // after the services' migrations made the tables
        } catch {
            await stack.stop()
            throw error
        }
        var world: World?
        do {
            let made = try await World.make(stack: stack, seededProfiles: options.seededProfiles)
            world = made
            try await ramp(options, world: made)
        } catch {
            world?.close()
            await stack.stop()
            throw error
        }
        world?.close()
        await stack.stop()
    }

    static func ramp(_ options: Options, world: World) async throws {
        Report.say("capacity-bench: \(options.instances) instance(s) per service behind the edge, \(options.seededProfiles) seeded ÉLITE "
              + "profiles, \(options.stepSeconds) s steps from \(options.startUsers) users ×\(options.growth) up to \(options.maxUsers)")
        Report.say(Report.stepHeader)
        var held: Step?
        var users = options.startUsers
        while users <= options.maxUsers {
            let setupStart = ContinuousClock.now
            do {
                _ = try await world.grow(to: users)
            } catch {
                // Bringing more users in is itself a service level: a box that cannot sign them
                // in or open their connections does not hold them.
                Report.say("\(String(format: "%6d", users))  setting the users up failed: \(error)")
                break
            }
            let active = world.users
            let setup = ContinuousClock.now - setupStart
            // A few seconds of the load first, not counted: connections warm, pools filled.
            _ = world.newBook()
            await OpenLoop.run(OpenLoop.schedule(active, length: .seconds(3)), users: active, world: world)
            _ = world.deliveries.takeLost(scheduledBefore: .now)
            let step = await measure(active, world: world, length: .seconds(options.stepSeconds))
            Report.say(Report.stepLine(step, setup: setup))
            if let broken = step.outcomes.brokenServiceLevel() {
                Report.say("  broke: \(broken)")
                break
            }
            held = step
            let next = Int((Double(users) * options.growth).rounded(.up))
            users = max(next, users + 1)
        }
        guard let held else {
            Report.say("\nno step held the service levels; the first step's outcomes are above")
            return
        }
        Report.say(Report.held(held))
        let costs = await Calibration.run(world: world, seconds: options.calibrateSeconds)
        Report.say(Report.mostExpensive(costs, in: held))
    }

    /// One step of the load over `users`: what they saw and what it cost.
    static func measure(_ users: [SimulatedUser], world: World, length: Duration) async -> Step {
        let book = world.newBook()
        let arrivals = OpenLoop.schedule(users, length: length)
        let before = CPUReading(world.stack)
        let start = ContinuousClock.now
        await OpenLoop.run(arrivals, users: users, world: world)
        let elapsed = ContinuousClock.now - start
        // Deliveries in flight get two seconds more; what is still missing then is lost.
        try? await Task.sleep(for: .seconds(2))
        book.lost(world.deliveries.takeLost(scheduledBefore: .now - .seconds(2)))
        let cpu = CPUReading(world.stack) - before
        return Step(users: users.count, scheduled: arrivals.count, elapsed: elapsed, length: length, cpu: cpu, outcomes: book.snapshot)
    }
}

/// A measured step.
struct Step: Sendable {
    var users: Int
    var scheduled: Int
    var elapsed: Duration
    var length: Duration
    var cpu: CPUReading
    var outcomes: [UserModel.Action: LatencyBook.Entry]

    var seconds: Double { Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 }
}

/// The command line.
struct Options {
    var startUsers = 100
    var growth = 1.5
    var maxUsers = 50_000
    var stepSeconds = 30
    var instances = 2
    var seededProfiles = 100_000
    var calibrateSeconds = 4

    static let usage = "usage: capacity-bench [--start-users N] [--growth X] [--max-users N] [--step-seconds S] [--instances N] "
        + "[--seeded-profiles N] [--calibrate-seconds S]"

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw Invalid(description: "\(flag) needs a value") }
            switch flag {
            case "--start-users": startUsers = try Self.positive(value, flag)
            case "--growth":
                guard let number = Double(value), number > 1 else { throw Invalid(description: "--growth takes a number above 1") }
                growth = number
            case "--max-users": maxUsers = try Self.positive(value, flag)
            case "--step-seconds": stepSeconds = try Self.positive(value, flag)
            case "--instances": instances = try Self.positive(value, flag)
            case "--seeded-profiles": seededProfiles = try Self.positive(value, flag)
            case "--calibrate-seconds": calibrateSeconds = try Self.positive(value, flag)
            default: throw Invalid(description: "unknown option \(flag)")
            }
        }
    }

    static func positive(_ value: String, _ flag: String) throws -> Int {
        guard let number = Int(value), number > 0 else { throw Invalid(description: "\(flag) takes a positive number") }
        return number
    }
}
