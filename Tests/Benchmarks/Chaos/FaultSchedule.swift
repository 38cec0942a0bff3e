import Foundation

/// The faults of a run and when each begins (seconds after the load starts), fixed before the
/// load starts and printed: kill -9 of a random instance every 15 s (the random draws from a
/// printed seed; none while Postgres is down or recovering), and once each (twice for the edge
/// reload) the others, spread over the run.
struct FaultSchedule: CustomStringConvertible {
    enum Kind: String, CaseIterable, Sendable {
        case kill = "kill -9 + restart"
        case stop = "SIGSTOP 10 s, SIGCONT"
        case terminate = "pg_terminate_backend"
        case reload = "edge reload (SIGHUP)"
        case slow = "slow S3 + icebreaker 20 s"
        case apns = "APNs 503 for 60 s"
        case postgres = "Postgres -m immediate"
    }

    struct Fault: Sendable {
        let kind: Kind
        let at: Int
        /// The instance (`service`, index) a kill or a stop hits; the service whose connections
        /// are terminated.
        var service = ""
        var instance = 0
    }

    let faults: [Fault]
    let seed: UInt64

    /// The APNs outage lasts a minute and must end 15 s before the load does: at least 150 s.
    static let minimumDuration = 150

    init(duration: Int, instances: Int, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let services = ["identity", "discovery", "messaging", "production", "media"]
        let at = { (share: Double) in Int(Double(duration) * share) }
        var faults: [Fault] = [
            Fault(kind: .stop, at: at(0.1) + 3, service: services.randomElement(using: &random)!, instance: Int.random(in: 0..<instances, using: &random)),
            Fault(kind: .reload, at: at(0.2)),
            Fault(kind: .terminate, at: at(0.28), service: "messaging"),
            Fault(kind: .slow, at: at(0.33)),
            Fault(kind: .apns, at: at(0.5)),
            Fault(kind: .postgres, at: at(0.67)),
            Fault(kind: .reload, at: at(0.8)),
        ]
        let stopped = faults[0]
        let postgres = at(0.67)
        for second in stride(from: 15, to: duration - 10, by: 15) {
            // Not while Postgres is down or recovering: each fault's recovery is its own.
            guard !(postgres - 2...postgres + 20).contains(second) else { continue }
            var service = services.randomElement(using: &random)!  // five of them
            // The other instance of a stopped service must keep serving it.
            if service == stopped.service, (stopped.at...stopped.at + 10).contains(second) { service = "identity" == service ? "discovery" : "identity" }
            faults.append(Fault(kind: .kill, at: second, service: service, instance: Int.random(in: 0..<instances, using: &random)))
        }
        self.faults = faults.sorted { $0.at < $1.at }
        self.seed = seed
    }

    var description: String {
        (["fault schedule (seed \(seed)):"] + faults.map { fault in
            let target = fault.kind == .kill || fault.kind == .stop ? " \(fault.service) #\(fault.instance + 1)"
                : fault.kind == .terminate ? " (\(fault.service)'s connections)" : ""
            let second = String(fault.at)
            return "  t=" + String(repeating: " ", count: max(0, 4 - second.count)) + second + " s  " + fault.kind.rawValue + target
        }).joined(separator: "\n")
    }
}

/// SplitMix64: the schedule's draws, repeatable from the printed seed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15  // wrapping: SplitMix64's counter
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9  // wrapping multiply, as the algorithm defines it
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
