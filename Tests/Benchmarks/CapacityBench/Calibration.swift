import Foundation

/// What one action costs the server side (services, edge and Postgres), measured alone: the
/// users idle for a while (their streams open) gives the baseline; then each scheduled action
/// runs by itself at a rate high enough to measure, and each part's CPU above its baseline is
/// divided by the actions answered.
enum Calibration {
    /// Actions per second each action is driven at while measured (slow ones lower).
    static func rate(_ action: UserModel.Action) -> Double {
        switch action {
        case .emailSignIn, .signUp: 4
        case .upload: 8
        default: 60
        }
    }

    /// CPU seconds per answered action, by part of the server side (`CPUReading.parts` but the client).
    static func run(world: World, seconds: Int) async -> [UserModel.Action: [String: Double]] {
        let users = world.users
        let length = Duration.seconds(seconds)
        let idleStart = CPUReading(world.stack)
        try? await Task.sleep(for: length)
        let idle = CPUReading(world.stack) - idleStart
        var costs: [UserModel.Action: [String: Double]] = [:]
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
            let used = CPUReading(world.stack) - before
            let idleShare = Report.seconds(elapsed) / Double(seconds)
            let answered = book.snapshot[action].map { Int($0.latencies.totalCount) } ?? 0
            guard answered > 0 else { continue }
            var parts: [String: Double] = [:]
            for part in CPUReading.parts where part != "client" {
                let above = (used.seconds[part] ?? 0) - (idle.seconds[part] ?? 0) * idleShare
                parts[part] = max(0, above) / Double(answered)
            }
            costs[action] = parts
        }
        _ = world.deliveries.takeLost(scheduledBefore: .now)
        return costs
    }
}
