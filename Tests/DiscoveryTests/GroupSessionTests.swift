import Contracts
import Foundation
import RPC
import Synchronization
import TestSupport
import Testing

/// Swivo's group sessions over the wire: anonymous devices, invite codes, the full-session
/// guard, one winner, the creator's close, and the session stream.
@Suite(.serialized, .discoveryServices) struct GroupSessionTests {
    static func sessions(_ members: DiscoveryMembers) -> GroupSessionsClient {
        GroupSessionsClient(client: members.discovery.client)
    }

    @Test func threeDevices_reachAMatch_andEveryoneSeesIt() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let sessions = Self.sessions(members)
        let (ana, ben, cai) = (try await members.join("swivo"), try await members.join("swivo"), try await members.join("swivo"))
        let categories = try await sessions.listCategories(.init(), options: ana.bearer).categories
        #expect(categories.map(\.categoryID).contains("cuisines"))
        let created = try await sessions.createSession(.init(categoryID: "cuisines", quorum: 3), options: ana.bearer)
        #expect(created.status == .open)
        #expect(created.inviteCode.count == 6)
        #expect(created.inviteLink.hasSuffix(created.inviteCode))
        #expect(created.participants.map(\.accountID) == [ana.id])
        for member in [ben, cai] {
            let joined = try await sessions.joinSession(.init(inviteCode: created.inviteCode.lowercased()), options: member.bearer)
            #expect(!joined.readOnly)
        }
        // Ben watches the session: its current state, then each change.
        let updates = Mutex<[Sessions.GroupSession]>([])
        let watcher = Task {
            for try await session in try await sessions.watchSession(.init(sessionID: created.sessionID), options: ben.bearer) {
                updates.withLock { $0.append(session) }
            }
        }
        let decks = try await [ana, ben, cai].asyncMap { try await sessions.getDeck(.init(sessionID: created.sessionID), options: $0.bearer) }
        #expect(Set(decks.map { Set($0.options.map(\.optionID)) }).count == 1)
        #expect(decks[0].options.count == 12)
        #expect(decks.map { $0.options.map(\.optionID) } != Array(repeating: decks[0].options.map(\.optionID), count: 3),
                "every participant got the same order")
        let thai = try #require(decks[0].options.first { $0.label == "Thai" })
        #expect(try await !sessions.likeOption(.init(sessionID: created.sessionID, optionID: thai.optionID), options: ana.bearer).matchFound)
        // Liking again is idempotent: still one like.
        #expect(try await !sessions.likeOption(.init(sessionID: created.sessionID, optionID: thai.optionID), options: ana.bearer).matchFound)
        #expect(try await !sessions.likeOption(.init(sessionID: created.sessionID, optionID: thai.optionID), options: ben.bearer).matchFound)
        let last = try await sessions.likeOption(.init(sessionID: created.sessionID, optionID: thai.optionID), options: cai.bearer)
        #expect(last.matchFound)
        #expect(last.matchedOption?.label == "Thai")
        try await watcher.value
        let seen = updates.withLock { $0 }
        #expect(seen.last?.status == .matched)
        #expect(seen.last?.matchedOption?.optionID == thai.optionID)
        // After the match: read-only for a newcomer, listed as closed for the participants.
        let late = try await members.join("swivo")
        let readOnly = try await sessions.joinSession(.init(inviteCode: created.inviteCode), options: late.bearer)
        #expect(readOnly.readOnly)
        #expect(readOnly.session?.matchedOption?.label == "Thai")
        let closed = try await sessions.listSessions(.init(status: .closed), options: cai.bearer).sessions.map(\.sessionID)
        #expect(closed.contains(created.sessionID))
        let open = try await sessions.listSessions(.init(status: .open), options: cai.bearer).sessions.map(\.sessionID)
        #expect(!open.contains(created.sessionID))
        let failure = await reason { _ = try await sessions.getSession(.init(sessionID: created.sessionID), options: late.bearer) }
        #expect(failure?.reason == "SESSION_NOT_FOUND")
    }

    /// Many devices try the last seat at once: exactly one gets in.
    @Test func joinsIntoTheLastSeat_exactlyOneWins() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let sessions = Self.sessions(members)
        let creator = try await members.join("swivo")
        let session = try await sessions.createSession(.init(categoryID: "movies"), options: creator.bearer)
        #expect(session.quorum == 2)
        var joiners: [Member] = []
        for _ in 0..<8 { joiners.append(try await members.join("swivo")) }
        let outcomes = await withTaskGroup(of: (code: StatusCode, reason: String?)?.self) { group in
            for joiner in joiners {
                group.addTask { await reason { _ = try await sessions.joinSession(.init(inviteCode: session.inviteCode), options: joiner.bearer) } }
            }
            var all: [(code: StatusCode, reason: String?)?] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.compactMap { $0 }.allSatisfy { $0.code == .failedPrecondition && $0.reason == "SESSION_FULL" })
        #expect(try await sessions.getSession(.init(sessionID: session.sessionID), options: creator.bearer).participants.count == 2)
    }

    /// Likes from every participant on two options at once, each option one like short: exactly
    /// one option wins and every later like answers with it.
    @Test func twoOptionsCompletingAtOnce_haveExactlyOneWinner() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let sessions = Self.sessions(members)
        var people = [try await members.join("swivo")]
        let session = try await sessions.createSession(.init(categoryID: "activities", quorum: 5), options: people[0].bearer)
        for _ in 0..<4 {
            let member = try await members.join("swivo")
            _ = try await sessions.joinSession(.init(inviteCode: session.inviteCode), options: member.bearer)
            people.append(member)
        }
        let deck = try await sessions.getDeck(.init(sessionID: session.sessionID), options: people[0].bearer)
        let (first, second) = (deck.options[0].optionID, deck.options[1].optionID)
        for person in people.dropFirst() {
            for option in [first, second] {
                _ = try await sessions.likeOption(.init(sessionID: session.sessionID, optionID: option), options: person.bearer)
            }
        }
        let creator = people[0]
        let results = try await withThrowingTaskGroup(of: Sessions.LikeOptionResponse.self) { group in
            for option in [first, second] {
                group.addTask { try await sessions.likeOption(.init(sessionID: session.sessionID, optionID: option), options: creator.bearer) }
            }
            var all: [Sessions.LikeOptionResponse] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.allSatisfy { $0.matchFound })
        let winners = Set(results.compactMap { $0.matchedOption?.optionID })
        #expect(winners.count == 1)
        let final = try await sessions.getSession(.init(sessionID: session.sessionID), options: people[3].bearer)
        #expect(final.status == .matched)
        #expect(winners == [final.matchedOption?.optionID ?? ""])
    }

    /// 64 concurrent LikeOption callers on one session of the largest quorum, 5 (each participant
    /// on 12 or 13 devices at once), every caller liking its participant's deck in turn from its
    /// own starting point until the session matches: many options complete around the same
    /// instant, and exactly one wins. Every caller ends with that winner, the stored likes show
    /// it alone reached the quorum, and a like after the match answers with it.
    @Test func likeOption_64ConcurrentCallers_onOneSession_exactlyOneWinner() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let sessions = Self.sessions(members)
        var people = [try await members.join("swivo")]
        let session = try await sessions.createSession(.init(categoryID: "cuisines", quorum: 5), options: people[0].bearer)
        for _ in 0..<4 {
            let member = try await members.join("swivo")
            _ = try await sessions.joinSession(.init(inviteCode: session.inviteCode), options: member.bearer)
            people.append(member)
        }
        var decks: [[String]] = []
        for person in people {
            decks.append(try await sessions.getDeck(.init(sessionID: session.sessionID), options: person.bearer).options.map(\.optionID))
        }
        let winners = try await withThrowingTaskGroup(of: String.self) { group in
            for caller in 0..<64 {
                let (person, deck) = (people[caller % 5], decks[caller % 5])
                group.addTask {
                    for step in 0..<(deck.count * 2) {
                        let option = deck[(caller / 5 + step) % deck.count]
                        let response = try await sessions.likeOption(.init(sessionID: session.sessionID, optionID: option),
                                                                     options: person.bearer)
                        if response.matchFound { return response.matchedOption?.optionID ?? "" }
                    }
                    return ""
                }
            }
            var all: [String] = []
            for try await winner in group { all.append(winner) }
            return all
        }
        #expect(winners.count == 64)
        #expect(!winners.contains(""), "every caller learns of the match")
        #expect(Set(winners).count == 1, "exactly one winner, not \(Set(winners))")
        let winner = try #require(winners.first)
        let final = try await sessions.getSession(.init(sessionID: session.sessionID), options: people[1].bearer)
        #expect(final.status == .matched)
        #expect(final.matchedOption?.optionID == winner)
        let complete = try await members.admin.withConnection { connection in
            try await connection.query("""
                SELECT option_id FROM discovery.session_likes WHERE session_id = $1::uuid
                GROUP BY option_id HAVING count(DISTINCT account_id) >= 5
                """, [.text(session.sessionID)]).map { try $0.decode(0, as: String.self) }
        }
        #expect(complete == [winner], "only the winner reached the quorum")
        let other = try #require(decks[0].first { $0 != winner })
        let late = try await sessions.likeOption(.init(sessionID: session.sessionID, optionID: other), options: people[0].bearer)
        #expect(late.matchFound && late.matchedOption?.optionID == winner)
    }

    @Test func creatorCloses_othersCannot_andBadInputHasItsReason() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let sessions = Self.sessions(members)
        let creator = try await members.join("swivo")
        let guest = try await members.join("swivo")
        var failure = await reason { _ = try await sessions.createSession(.init(categoryID: "cuisines", quorum: 7), options: creator.bearer) }
        #expect(failure?.code == .invalidArgument)
        #expect(failure?.reason == "INVALID_QUORUM")
        failure = await reason { _ = try await sessions.createSession(.init(categoryID: "nope"), options: creator.bearer) }
        #expect(failure?.reason == "CATEGORY_NOT_FOUND")
        failure = await reason { _ = try await sessions.joinSession(.init(inviteCode: "0OIL11"), options: guest.bearer) }
        #expect(failure?.code == .notFound)
        #expect(failure?.reason == "INVALID_JOIN_CODE")
        failure = await reason { _ = try await sessions.getSession(.init(sessionID: "x"), options: guest.bearer) }
        #expect(failure?.reason == "INVALID_SESSION_ID")
        let session = try await sessions.createSession(.init(categoryID: "drinks", quorum: 3), options: creator.bearer)
        _ = try await sessions.joinSession(.init(inviteCode: session.inviteCode), options: guest.bearer)
        failure = await reason { _ = try await sessions.likeOption(.init(sessionID: session.sessionID, optionID: "cuisines-thai"), options: guest.bearer) }
        #expect(failure?.reason == "OPTION_NOT_FOUND")
        failure = await reason { _ = try await sessions.closeSession(.init(sessionID: session.sessionID), options: guest.bearer) }
        #expect(failure?.code == .permissionDenied)
        #expect(failure?.reason == "NOT_SESSION_CREATOR")
        let closed = try await sessions.closeSession(.init(sessionID: session.sessionID), options: creator.bearer)
        #expect(closed.status == .closed)
        #expect(closed.matchedOption == nil)
        failure = await reason { _ = try await sessions.likeOption(.init(sessionID: session.sessionID, optionID: "drinks-pub"), options: guest.bearer) }
        #expect(failure?.reason == "SESSION_CLOSED")
        // Another app's account cannot use the code.
        let stranger = try await members.join("unseen")
        failure = await reason { _ = try await sessions.joinSession(.init(inviteCode: session.inviteCode), options: stranger.bearer) }
        #expect(failure?.reason == "INVALID_JOIN_CODE")
    }

    /// A creator who deletes their account hands each session they made to the participant who
    /// joined first after them, who may then close it; a session nobody else joined goes.
    @Test func aDeletedCreator_handsTheSessionToTheFirstGuest_andASessionOfTheirOwnGoes() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let sessions = Self.sessions(members)
        let (creator, first, second) = (try await members.join("swivo"), try await members.join("swivo"),
                                        try await members.join("swivo"))
        let shared = try await sessions.createSession(.init(categoryID: "drinks", quorum: 3), options: creator.bearer)
        for guest in [first, second] { _ = try await sessions.joinSession(.init(inviteCode: shared.inviteCode), options: guest.bearer) }
        let alone = try await sessions.createSession(.init(categoryID: "movies"), options: creator.bearer)

        _ = try await members.identity.deleteAccount(options: creator.bearer)
        // Until discovery applied the AccountDeleted (SessionsRevoked, which it does not follow, comes after it).
        let applied = ContinuousClock.now + .seconds(15)
        while try await members.admin.withConnection({ connection in
            try await connection.query("""
                SELECT coalesce((SELECT cursor FROM discovery.event_cursors WHERE source = 'identity'), 0)
                       < (SELECT cursor FROM identity.outbox WHERE type = 'AccountDeleted' AND aggregate_id = $1)
                """, [.text(creator.id)])[0].decode(0, as: Bool.self)
        }) {
            try #require(ContinuousClock.now < applied, "discovery applies the deletion")
            try await Task.sleep(for: .milliseconds(25))
        }

        let handed = try await sessions.getSession(.init(sessionID: shared.sessionID), options: second.bearer)
        #expect(handed.creatorID == first.id)
        #expect(Set(handed.participants.map(\.accountID)) == [first.id, second.id])
        let refused = await reason { _ = try await sessions.closeSession(.init(sessionID: shared.sessionID), options: second.bearer) }
        #expect(refused?.reason == "NOT_SESSION_CREATOR")
        #expect(try await sessions.closeSession(.init(sessionID: shared.sessionID), options: first.bearer).status == .closed)
        let gone = try await members.admin.withConnection { connection in
            try await connection.query("SELECT count(*) FROM discovery.group_sessions WHERE id = $1::uuid OR creator_id = $2::uuid",
                                       [.text(alone.sessionID), .text(creator.id)])[0].decode(0, as: Int64.self)
        }
        #expect(gone == 0)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
