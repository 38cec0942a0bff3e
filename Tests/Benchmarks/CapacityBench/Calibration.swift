import Foundation

/// What one action costs the server side (services, edge and Postgres), measured alone: the
/// users idle for a while (their streams open) gives the baseline; then each scheduled action
/// runs by itself at a rate high enough to measure, and its CPU above the baseline is divided
/// by the actions answered.
enum Calibration {
    /// Actions per second each action is driven at while measured (slow ones lower).
    static func rate(_ action: UserModel.Action) -> Double {
        switch action {
        case .emailSignIn, .signUp: 4
        case .upload: 8
        default: 60
        }
    }

    /// Server CPU seconds per answered action.
    static func run(world: World, seconds: Int) async -> [UserModel.Action: Double] {
        let users = world.users
        let length = Duration.seconds(seconds)
        let idleStart = CPUReading(world.stack)
        try? await Task.sleep(for: length)
        let idlePerSecond = (CPUReading(world.stack) - idleStart).server / Double(seconds)
        var costs: [UserModel.Action: Double] = [:]
        for action in UserModel.Action.allCases {
            let modelRate = users.reduce(0.0) { total, user in
                total + (UserModel.rates(user.app).first { $0.action == action }?.perMinute ?? 0) / 60
            }
            guard modelRate > 0 else { continue }
            let book = world.newBook()
            let arrivals = OpenLoop.schedule(users, length: length, only: action, rateScale: rate(action) / modelRate)
            let before = CPUReading(world.stack)
            let start = ContinuousClock.now
            await OpenLoop.run(arrivals, users: users, world: world)
            let elapsed = ContinuousClock.now - start
            let used = (CPUReading(world.stack) - before).server
                - idlePerSecond * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            let answered = book.snapshot[action].map { Int($0.latencies.totalCount) } ?? 0
            if answered > 0 { costs[action] = max(0, used) / Double(answered) }
        }
        _ = world.deliveries.takeLost(scheduledBefore: .now)
        return costs
    }
}
