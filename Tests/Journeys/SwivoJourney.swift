import Contracts
import Foundation
import GatewayClient
import RPC
import Synchronization
import TestSupport

/// Swivo: three anonymous devices decide on dinner in a session of quorum 3; a fourth device
/// finds it full; all three like the same option at the same instant and exactly one of those
/// likes completes the match, which every device learns (the watch stream, the closed list)
/// and is pushed. Crosses identity, discovery, messaging (push) and APNs.
package struct SwivoJourney {
    let context: JourneyContext

    package init(context: JourneyContext) { self.context = context }

    package func run() async throws {
        let clients = Clients()
        defer { clients.close() }
        let devices = try (0..<4).map { _ in try context.client("swivo", in: clients) }
        var tokens: [String] = []
        for (index, device) in devices.enumerated() {
            _ = try await device.identity.signInAnonymously()
            let token = JourneyContext.deviceToken()
            _ = try await device.devices.registerPushToken(token, platform: .apns, environment: .production, deviceID: "swivo-\(index)")
            tokens.append(token)
        }
        let (host, guests, late) = (devices[0], Array(devices[1...2]), devices[3])

        let categories = try await host.groupSessions.categories()
        guard let cuisines = categories.first(where: { $0.categoryID == "cuisines" }) else {
            throw JourneyFailure("the cuisines category is offered: \(categories.map(\.categoryID))")
        }
        let session = try await host.groupSessions.create(categoryID: cuisines.categoryID, quorum: 3)
        try check(session.inviteCode.count >= 4, "the session has an invite code to share")
        for guest in guests {
            let joined = try await guest.groupSessions.join(inviteCode: session.inviteCode)
            try check(!joined.readOnly, "a guest within the quorum joins to swipe")
        }
        // The full-session guard: a fourth device is turned away.
        try await refused(.failedPrecondition, "SESSION_FULL", "a fourth device joining a session of three") {
            _ = try await late.groupSessions.join(inviteCode: session.inviteCode)
        }

        let watched = Mutex<[Sessions.SessionStatus]>([])
        let watcher = Task {
            for try await update in guests[0].groupSessions.watch(session.sessionID) { watched.withLock { $0.append(update.status) } }
        }
        defer { watcher.cancel() }
        let deck = try await host.groupSessions.deck(session.sessionID)
        guard let pick = deck.options.first else { throw JourneyFailure("the deck has options") }

        // The race: all three like the pick at once; exactly one like completes the match.
        let answers = try await withThrowingTaskGroup(of: Sessions.LikeOptionResponse.self) { group in
            for device in devices.prefix(3) {
                group.addTask { try await device.groupSessions.like(optionID: pick.optionID, in: session.sessionID) }
            }
            return try await group.reduce(into: [Sessions.LikeOptionResponse]()) { $0.append($1) }
        }
        try check(answers.filter(\.matchFound).count == 1, "exactly one of the racing likes found the match: \(answers.map(\.matchFound))")
        try check(answers.first { $0.matchFound }?.matchedOption?.optionID == pick.optionID, "the match is the option all three liked")

        _ = try await context.eventually("the watcher to see the match", { watched.withLock { $0 } }) { $0.last == .matched }
        let closed = try await guests[1].groupSessions.list(.closed)
        try check(closed.sessions.contains { $0.sessionID == session.sessionID }, "the matched session is among a guest's closed ones")
        for token in tokens.prefix(3) {
            let push = try await context.push(to: token, category: "session_matched")
            try check(push.payload["deep_link"]?.stringValue == "swivo://session/\(session.sessionID)",
                      "the push opens the session: \(String(describing: push.payload["deep_link"]))")
        }
        try check(!(try context.apns.requests(to: tokens[3]).contains { $0.category == "session_matched" }),
                  "the device turned away is not pushed")
    }
}
