import Foundation

/// Arrivals on a schedule, not on answers (wrk2's open loop): every user's every action gets its
/// own Poisson arrivals for the step, all are merged in time order, and each starts at its
/// instant as a task of its own, whether or not earlier ones have been answered. Latency runs
/// from the scheduled instant, so a server (or a client) that falls behind shows as latency
/// instead of as fewer requests: coordinated omission is corrected by construction.
enum OpenLoop {
    struct Arrival: Sendable {
        var offset: Duration
        var user: Int
        var action: UserModel.Action
    }

    /// The step's arrivals over `length`, ordered.
    static func schedule(_ users: [SimulatedUser], length: Duration, only: UserModel.Action? = nil,
                         rateScale: Double = 1) -> [Arrival] {
        let seconds = Double(length.components.seconds) + Double(length.components.attoseconds) / 1e18
        var arrivals: [Arrival] = []
        for (index, user) in users.enumerated() {
            for rate in UserModel.rates(user.app) where only == nil || rate.action == only {
                let perSecond = rate.perMinute / 60 * rateScale
                guard perSecond > 0 else { continue }
                var at = exponential(mean: 1 / perSecond)
                while at < seconds {
                    arrivals.append(Arrival(offset: .nanoseconds(Int64(at * 1e9)), user: index, action: rate.action))
                    at += exponential(mean: 1 / perSecond)
                }
            }
        }
        return arrivals.sorted { $0.offset < $1.offset }
    }

    /// Runs `arrivals` from now; returns when every action has been answered or has failed.
    static func run(_ arrivals: [Arrival], users: [SimulatedUser], world: World) async {
        let book = world.book
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for arrival in arrivals {
                let scheduled = start + arrival.offset
                if scheduled > ContinuousClock.now + .milliseconds(1) { try? await Task.sleep(until: scheduled) }
                let user = users[arrival.user]
                group.addTask {
                    do {
                        try await user.perform(arrival.action, world: world, scheduled: scheduled)
                        book.answered(arrival.action, ContinuousClock.now - scheduled)
                    } catch {
                        book.failed(arrival.action, error, after: ContinuousClock.now - scheduled)
                    }
                }
            }
        }
    }

    private static func exponential(mean: Double) -> Double { -log(1 - Double.random(in: 0..<1)) * mean }
}
