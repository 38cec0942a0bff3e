import Contracts
import Foundation
import Postgres
import Runtime

/// Turns events into push jobs, inside the transaction that records the event as applied (so
/// a job is planned exactly once and never lost): messaging's own realtime outbox (a message to
/// its recipient, a match to both members, a Swivo session's match, encounter steps, incoming
/// and missed calls), identity's ReferralUsed, production's ApplicationStatusChanged and EpisodePublished (to
/// everyone who turned that category on) and media's
/// EventRevealed (each member of a Momento event). A recipient who
/// turned the category off gets no job; inside their quiet hours the push is silent. Events that
/// occurred before a point-in-time restore's target plan none (`PushHorizon`).
struct PushPlanner: Sendable {
    let maximumAge: Duration
    let horizon = PushHorizon()

    /// PhotosRevealed is not among them: media's EventRevealed plans that push (with the event's
    /// gallery link), and a second one from the realtime copy would be a duplicate.
    static let realtimeTypes = ["MessageReceived", "MatchOpened", "SessionMatched", "EncounterStep", "CallUpdated"]
    static let identityTypes = ["ReferralUsed"]
    static let productionTypes = ["ApplicationStatusChanged", "EpisodePublished"]
    static let mediaTypes = ["EventRevealed"]

    /// Plans the pushes `event` of stream `source` causes.
    func apply(_ event: Events.Event, source: String, on connection: Connection) async throws {
        let now = Int64(Date().timeIntervalSince1970)
        if let occurred = event.occurredAt {
            if now - occurred.seconds > maximumAge.components.seconds { return }
            if try await !horizon.admits(occurred: occurred.microseconds, on: connection) { return }
        }
        let origin = "\(source):\(event.cursor)"
        switch event.type {
        case "ReferralUsed":
            let used = try Membership.ReferralUsed(serializedBytes: event.payload)
            guard let referrer = UUID(uuidString: used.referrerAccountID) else { return }
            try await plan(PushPayload(title: "Your invite was used", body: "Someone joined with your referral code.",
                                       category: .referralUsed, threadID: "referrals", deepLink: "\(event.app)://referrals"),
                           to: referrer, app: event.app, source: origin, reference: used.code, on: connection)
        case "ApplicationStatusChanged":
            let changed = try Production.ApplicationStatusChanged(serializedBytes: event.payload)
            guard let applicant = UUID(uuidString: changed.accountID) else { return }
            try await plan(PushPayload(title: "Your application was updated", body: "Open the app to see where it stands.",
                                       category: .applicationUpdate, threadID: "application-\(changed.applicationID)",
                                       deepLink: "\(event.app)://application/\(changed.applicationID)"),
                           to: applicant, app: event.app, source: origin, reference: changed.applicationID,
                           collapseID: "application-\(changed.applicationID)", on: connection)
        case "EpisodePublished":
            // Off by default: the audience is everyone who turned the category on (an account
            // of another app has no token for this app's topic, so nothing reaches it).
            let published = try Production.EpisodePublished(serializedBytes: event.payload)
            let audience = try await connection.query("""
                SELECT account_id FROM messaging.push_categories WHERE category = $1 AND enabled
                """, [.int16(NotificationCategory.episodePublished.rawValue)])
            for row in audience {
                try await plan(PushPayload(title: "A new episode is out",
                                           body: "Season \(published.seasonNumber), episode \(published.number): \(published.title)",
                                           category: .episodePublished, threadID: "episodes",
                                           deepLink: "\(event.app)://episode/\(published.episodeID)"),
                               to: try row.decode(0), app: event.app, source: origin, reference: published.episodeID,
                               collapseID: "episode-\(published.episodeID)", on: connection)
            }
        case "EventRevealed":
            let revealed = try Momento.EventRevealed(serializedBytes: event.payload)
            let link = revealed.galleryLink.isEmpty ? "\(event.app)://event/\(revealed.eventID)/gallery" : revealed.galleryLink
            for member in Set(revealed.memberIDs.compactMap(UUID.init(uuidString:))) {
                try await plan(PushPayload(title: "Your Momento is ready!", body: "Tap to view photos from \(revealed.title).",
                                           category: .photosRevealed, threadID: "event-\(revealed.eventID)", deepLink: link),
                               to: member, app: event.app, source: origin, reference: revealed.eventID,
                               collapseID: "event-\(revealed.eventID)", on: connection)
            }
        default:
            guard let recipient = UUID(uuidString: event.aggregateID) else { return }
            try await planRealtime(try Realtime.RealtimeEvent(serializedBytes: event.payload), to: recipient, app: event.app,
                                   source: origin, on: connection)
        }
    }

    private func planRealtime(_ realtime: Realtime.RealtimeEvent, to recipient: UUID, app: String, source: String,
                              on connection: Connection) async throws {
        switch realtime.event {
        case .message(let received):
            let message = received.message ?? Messaging.Message()
            // The sender's own stream carries the message too, for their other devices: no push.
            guard UUID(uuidString: message.senderID) != recipient else { return }
            let body: String = switch message.body {
            case .text(let text): PushPayload.preview(text)
            case .photo: "📷 Photo"
            case nil: "New message"
            }
            try await plan(PushPayload(title: "New message", body: body, category: .message, threadID: message.conversationID,
                                       deepLink: "\(app)://conversation/\(message.conversationID)"),
                           to: recipient, app: app, source: source, reference: message.messageID,
                           collapseID: message.messageID, on: connection)
        case .match(let opened):
            let id = opened.conversation?.conversationID ?? ""
            try await plan(PushPayload(title: opened.superLike ? "A super match!" : "It's a match!",
                                       body: "Say hello to your new match.", category: .match, threadID: id,
                                       deepLink: "\(app)://conversation/\(id)"),
                           to: recipient, app: app, source: source, reference: id, collapseID: "match-\(id)", on: connection)
        case .sessionMatched(let matched):
            try await plan(PushPayload(title: "Your group found a match", body: "Everyone liked \(matched.optionName).",
                                       category: .sessionMatched, threadID: "session-\(matched.sessionID)",
                                       deepLink: "\(app)://session/\(matched.sessionID)"),
                           to: recipient, app: app, source: source, reference: matched.sessionID,
                           collapseID: "session-\(matched.sessionID)", on: connection)
        case .photosRevealed:
            return  // pushed from media's EventRevealed (see `realtimeTypes`)
        case .encounterStep(let step):
            guard let (title, body) = Self.encounterAlert(step) else { return }
            try await plan(PushPayload(title: title, body: body, category: .encounterStep,
                                       threadID: "encounter-\(step.encounterID)",
                                       deepLink: "\(app)://encounter/\(step.encounterID)"),
                           to: recipient, app: app, source: source, reference: step.encounterID,
                           collapseID: "encounter-\(step.encounterID)-\(step.step)", on: connection)
        case .callUpdated(let updated):
            guard let call = updated.call, UUID(uuidString: call.calleeID) == recipient,
                  let (payload, expiresAt) = Self.callAlert(call, app: app) else { return }
            try await plan(payload, to: recipient, app: app, source: source, reference: call.callID,
                           collapseID: "call-\(call.callID)", expiresAt: expiresAt,
                           pushType: call.state == .ringing ? "voip" : "alert", on: connection)
        default:
            return
        }
    }

    /// The push that wakes a call's callee (time-sensitive, gone from APNs when the ring ends),
    /// or the missed call replacing it (under the same collapse id), with when APNs stops
    /// trying; nil for the other states (the callee's app is on the call then).
    static func callAlert(_ call: Calls.Call, app: String) -> (PushPayload, Int64)? {
        let data = ["call_id": call.callID, "conversation_id": call.conversationID, "caller_id": call.callerID]
        switch call.state {
        case .ringing:
            var payload = PushPayload(title: "Incoming video call", body: "Your match is calling. Tap to answer.",
                                      category: .call, threadID: call.conversationID, deepLink: "\(app)://call/\(call.callID)")
            payload.timeSensitive = true
            payload.data = data
            return (payload, call.ringDeadline?.seconds ?? Int64(Date().timeIntervalSince1970) + 60)
        case .missed, .cancelled:
            var payload = PushPayload(title: "Missed video call", body: "Tap to call back.", category: .call,
                                      threadID: call.conversationID, deepLink: "\(app)://conversation/\(call.conversationID)")
            payload.data = data
            return (payload, Int64(Date().timeIntervalSince1970) + 86_400)
        default:
            return nil
        }
    }

    /// Queues `payload` for `account` unless they turned its category off; APNs keeps trying
    /// until `expiresAt` (Unix seconds; a day by default).
    func plan(_ payload: PushPayload, to account: UUID, app: String, source: String, reference: String,
              collapseID: String? = nil, priority: Int = 10, expiresAt: Int64? = nil, pushType: String = "alert",
              on connection: Connection) async throws {
        let preferences = try await PushPreferencesStore.read(account, on: connection)
        guard preferences.enabled[payload.category] ?? payload.category.enabledByDefault else { return }
        let now = Int64(Date().timeIntervalSince1970)
        var payload = payload
        payload.quiet = preferences.quietHours.contains(unixSeconds: now)
        try await PushQueue.add(PushJob(source: source, account: account, app: app, category: payload.category,
                                        reference: reference, payload: payload.bytes(),
                                        collapseID: collapseID.map { String($0.utf8.prefix(64)) ?? $0 },
                                        priority: priority, expiresAt: expiresAt ?? now + 86_400, pushType: pushType),
                                on: connection)
    }

    /// The alert for an encounter step worth waking its recipient for (the step as that side
    /// sees it), or nil: the other side's own moves and the mid-steps the app shows live
    /// (message counts, submissions awaiting the other side) make no push.
    static func encounterAlert(_ step: Realtime.EncounterStep) -> (String, String)? {
        let encounter = step.encounter ?? Encounters.Encounter()
        switch step.step {
        case "joined" where encounter.startedByMe:
            return ("Someone joined your encounter", "Say hello.")
        case "meaningful":
            return ("Your encounter is meaningful", "Either of you may now propose the Convergence.")
        case "convergence_proposed" where !encounter.proposedByMe:
            return ("An invitation to converge", "You have 30 seconds to answer.")
        case "convergence_accepted" where encounter.proposedByMe:
            return ("They accepted", "Describe where to meet.")
        case "convergence_declined" where encounter.proposedByMe, "convergence_timed_out" where encounter.proposedByMe:
            return ("Not this time", "A reflection is waiting for you.")
        case "meetup_described" where !encounter.proposedByMe:
            return ("Where to meet", "Open the app to see the meet-up.")
        case "arrived" where encounter.theyArrived && !encounter.iArrived:
            return ("They have arrived", "Confirm when you are there.")
        case "handshake_verified":
            return ("You found each other", "Your time together starts now.")
        case "in_person_completed":
            return ("Time's up", "Write your shared artifact.")
        case "resolved":
            return ("Your encounter is complete", "See your resonance.")
        default:
            return nil
        }
    }
}
