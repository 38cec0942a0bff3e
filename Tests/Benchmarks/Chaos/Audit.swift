import Contracts
import Foundation
import Postgres
import TestSupport

/// What the clients were told, held against the database, the realtime streams and the fake
/// APNs once the load stopped and the stack settled: per kind of write, how many acknowledged
/// writes were checked, how many are missing (lost) and how many exist more than once
/// (duplicated), and what else is wrong (a half-written write, a stream gap, a push twice).
struct Audit {
    struct Line {
        let kind: String
        var audited = 0
        var lost = 0
        var duplicated = 0
        var notes: [String] = []
    }

    var lines: [Line] = []

    var lost: Int { lines.reduce(0) { $0 + $1.lost } }
    var duplicated: Int { lines.reduce(0) { $0 + $1.duplicated } }
    var audited: Int { lines.reduce(0) { $0 + $1.audited } }

    /// Counts rows of `sql` (one text parameter: a comma-separated list of ids) by its first column.
    static func counts(_ admin: PostgresPool, _ sql: String, _ ids: [String]) async throws -> [String: Int] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await admin.withConnection { connection in
            try await connection.query(sql, [.text(ids.joined(separator: ","))])
        }
        var counts: [String: Int] = [:]
        for row in rows { counts[try row.decode(0, as: String.self)] = try row.decode(1, as: Int.self) }
        return counts
    }

    /// For the report, up to three pushes that reached APNs twice, each with what it left
    /// behind: when each accepted request arrived, and its jobs' delivery rows.
    static func pushedTwice(_ pushes: [(token: String, collapseID: String)], apns: FakeAPNs,
                            admin: PostgresPool) async throws -> [String] {
        var notes: [String] = []
        for (token, collapseID) in pushes.prefix(3) {
            notes.append(try await pushedTwice(token: token, collapseID: collapseID, apns: apns, admin: admin))
        }
        return notes
    }

    /// What a push that reached APNs twice left behind: when each accepted request arrived, and
    /// each of its jobs' delivery rows (leases, the sender's attempts).
    private static func pushedTwice(token: String, collapseID: String, apns: FakeAPNs, admin: PostgresPool) async throws -> String {
        let clock = Date.FormatStyle(timeZone: TimeZone(identifier: "UTC")!).hour(.twoDigits(amPM: .omitted)).minute().second().secondFraction(.fractional(3))
        let arrivals = apns.allRequests.filter { $0.status == 200 && $0.deviceToken == token && $0.collapseID == collapseID }
            .map { $0.receivedAt.formatted(clock) }
        let rows = try await admin.withConnection { connection in
            try await connection.query("""
                SELECT j.id::text || ' (leases ' || j.leases || ', attempts ' || d.attempts || ', logged '
                       || to_char(d.sent_at AT TIME ZONE 'UTC', 'HH24:MI:SS.MS') || ')'
                FROM messaging.push_jobs j LEFT JOIN messaging.push_deliveries d ON d.job_id = j.id
                WHERE j.collapse_id = $1
                """, [.text(collapseID)])
        }
        let jobs = try rows.map { try $0.decode(0, as: String?.self) ?? "a job with no delivery logged" }
        return "\(collapseID) accepted at \(arrivals.joined(separator: " and ")) UTC; its jobs: \(jobs.joined(separator: ", "))"
    }

    static func run(chat: ChatLoad, matches: MatchLoad, groups: GroupLoad, ledger: LedgerLoad, consent: ConsentLoad,
                    encounters: EncounterLoad, apns: FakeAPNs) async throws -> Audit {
        let admin = try await TestDatabase.makeAdminPool(poolSize: 1)
        defer { admin.close() }
        var audit = Audit()
        let delivered = Dictionary(grouping: apns.allRequests.filter { $0.status == 200 }) { "\($0.deviceToken) \($0.collapseID ?? "")" }
            .mapValues(\.count)

        // Messages, by client id: in the table once, on the receiver's stream once, pushed once.
        var messages = Line(kind: "messages (by client id)")
        let sent = chat.messages
        let stored = try await counts(admin, """
            SELECT client_message_id, count(*)::int FROM messaging.messages
            WHERE client_message_id = ANY(string_to_array($1, ',')) GROUP BY 1
            """, sent.map(\.clientMessageID))
        let arrivals = chat.arrivals
        var missed = 0, repeated = 0, pushMissing = 0, unacknowledged = 0
        var twice: [(token: String, collapseID: String)] = []
        for message in sent {
            let count = stored[message.clientMessageID] ?? 0
            guard let messageID = message.messageID else {
                unacknowledged += 1
                if count > 1 { messages.duplicated += 1 }
                continue
            }
            messages.audited += 1
            if count == 0 { messages.lost += 1 }
            if count > 1 { messages.duplicated += 1 }
            switch arrivals[message.clientMessageID] ?? 0 {
            case 0: missed += 1
            case 1: break
            default: repeated += 1
            }
            let token = chat.pairs[message.pair].receiver.deviceToken.lowercased()
            switch delivered["\(token) \(messageID)"] ?? 0 {
            case 0: pushMissing += 1
            case 1: break
            default: twice.append((token, messageID))
            }
        }
        messages.notes = ["realtime: \(missed) missed, \(repeated) repeated", "pushes: \(pushMissing) missing, \(twice.count) twice",
                          "\(unacknowledged) never acknowledged, even sent again"]
        messages.notes += try await Self.pushedTwice(twice, apns: apns, admin: admin)
        messages.lost += missed + pushMissing
        messages.duplicated += repeated + twice.count
        audit.lines.append(messages)

        // Matches: one per pair, its conversation once (messaging applied MatchCreated once),
        // its push to both members once.
        var matchLine = Line(kind: "matches (one per pair)")
        let attempts = matches.all
        let acknowledged = attempts.compactMap(\.matchID)
        let pairs = try await counts(admin, """
            SELECT account_low::text || account_high::text, count(*)::int FROM discovery.matches
            WHERE account_low::text = ANY(string_to_array($1, ',')) OR account_high::text = ANY(string_to_array($1, ',')) GROUP BY 1
            """, attempts.flatMap { [$0.a.accountID, $0.b.accountID] })
        let matchRows = try await counts(admin, "SELECT id::text, count(*)::int FROM discovery.matches WHERE id::text = ANY(string_to_array($1, ',')) GROUP BY 1",
                                         acknowledged)
        let conversations = try await counts(admin, """
            SELECT id::text, count(*)::int FROM messaging.conversations WHERE id::text = ANY(string_to_array($1, ',')) GROUP BY 1
            """, acknowledged)
        var noConversation = 0, matchPushMissing = 0
        var matchTwice: [(token: String, collapseID: String)] = []
        for attempt in attempts {
            let pair = [attempt.a.accountID, attempt.b.accountID].sorted().joined()
            if (pairs[pair] ?? 0) > 1 { matchLine.duplicated += 1 }
            guard let matchID = attempt.matchID else { continue }
            matchLine.audited += 1
            if matchRows[matchID] == nil { matchLine.lost += 1 }
            if conversations[matchID] == nil { noConversation += 1 }
            for member in [attempt.a, attempt.b] {
                let token = member.deviceToken.lowercased()
                switch delivered["\(token) match-\(matchID)"] ?? 0 {
                case 0: matchPushMissing += 1
                case 1: break
                default: matchTwice.append((token, "match-\(matchID)"))
                }
            }
        }
        matchLine.notes = ["\(attempts.count - acknowledged.count) pairs never acknowledged", "conversations missing: \(noConversation)",
                           "pushes: \(matchPushMissing) missing, \(matchTwice.count) twice"]
        matchLine.notes += try await Self.pushedTwice(matchTwice, apns: apns, admin: admin)
        matchLine.lost += noConversation + matchPushMissing
        matchLine.duplicated += matchTwice.count
        audit.lines.append(matchLine)

        // Swivo: at most one acknowledged like found the match; exactly one when all three were acknowledged.
        var swivo = Line(kind: "Swivo matches (one winner)")
        let races = groups.swivoRaces
        let matchedSessions = try await counts(admin, """
            SELECT id::text, count(*)::int FROM discovery.group_sessions
            WHERE id::text = ANY(string_to_array($1, ',')) AND matched_option_id IS NOT NULL GROUP BY 1
            """, races.map(\.sessionID))
        for race in races {
            swivo.audited += 1
            let winners = race.answers.filter { $0 }.count
            if winners > 1 { swivo.duplicated += 1 }
            if race.failures == 0 && winners == 0 { swivo.lost += 1 }
            if winners == 1 && matchedSessions[race.sessionID] == nil { swivo.lost += 1 }
        }
        swivo.notes = ["\(races.filter { $0.failures > 0 }.count) races with a like unacknowledged"]
        audit.lines.append(swivo)

        // Momento: acknowledged photos exist once; never more than the limit per member.
        var photos = Line(kind: "Momento photos (limit \(GroupLoad.photoLimit))")
        let guests = groups.momentoGuests
        let photoRows = try await counts(admin, """
            SELECT id::text, count(*)::int FROM media.event_photos WHERE id::text = ANY(string_to_array($1, ',')) GROUP BY 1
            """, guests.flatMap(\.photoIDs))
        let perMember = try await counts(admin, """
            SELECT account_id::text, count(*)::int FROM media.event_photos WHERE account_id::text = ANY(string_to_array($1, ',')) GROUP BY 1
            """, guests.map(\.accountID))
        var overLimit = 0
        for guest in guests {
            photos.audited += guest.photoIDs.count
            photos.lost += guest.photoIDs.filter { photoRows[$0] == nil }.count
            if (perMember[guest.accountID] ?? 0) > Int(GroupLoad.photoLimit) { overLimit += 1 }
        }
        photos.duplicated += overLimit
        photos.notes = ["\(guests.count) guests, \(overLimit) over the limit"]
        audit.lines.append(photos)

        // Ledger: acknowledged entries once; none twice (by the description each call carried).
        var entries = Line(kind: "ledger entries")
        let written = try await counts(admin, """
            SELECT description, count(*)::int FROM production.ledger_entries
            WHERE episode_id::text = $1 GROUP BY 1
            """, [ledger.episodeID])
        for entry in ledger.all {
            let count = written[entry.description] ?? 0
            if count > 1 { entries.duplicated += 1 }
            guard entry.entryID != nil else { continue }
            entries.audited += 1
            if count == 0 { entries.lost += 1 }
        }
        let unanswered = ledger.all.filter { $0.entryID == nil }
        entries.notes = ["\(unanswered.count) unacknowledged, \(unanswered.filter { written[$0.description] != nil }.count) of them written (once)"]
        audit.lines.append(entries)

        // Consent records: acknowledged ones once, none twice (by the device text each carried),
        // and every record of the episode one the load asked for.
        var records = Line(kind: "consent records")
        let signed = try await counts(admin, """
            SELECT device_info, count(*)::int FROM production.consent_records
            WHERE episode_id::text = $1 GROUP BY 1
            """, [consent.episodeID])
        let asked = Set(consent.all.map(\.deviceInfo))
        for capture in consent.all {
            let count = signed[capture.deviceInfo] ?? 0
            if count > 1 { records.duplicated += 1 }
            guard capture.recordID != nil else { continue }
            records.audited += 1
            if count == 0 { records.lost += 1 }
        }
        let strays = signed.keys.filter { !asked.contains($0) }.count
        records.duplicated += strays
        let unsigned = consent.all.filter { $0.recordID == nil }
        records.notes = ["\(unsigned.count) unacknowledged, \(unsigned.filter { signed[$0.deviceInfo] != nil }.count) of them written (once)"
                         + (strays > 0 ? "; \(strays) records nobody asked for" : "")]
        audit.lines.append(records)

        // Points, once per rule: each member of an acknowledged join has the encounter's
        // connection bonus once (production applies messaging's award event, waited for up to
        // 60 s), and no member of any encounter started has it twice.
        var points = Line(kind: "points (connection bonus)")
        let bonus = "SELECT account_id::text || ' ' || encounter_id, count(*)::int FROM production.points_entries "
            + "WHERE reason = \(Points.PointsReason.connectionBonus.rawValue) AND encounter_id = ANY(string_to_array($1, ',')) GROUP BY 1"
        let joined = encounters.joined
        let expected = joined.flatMap { meeting in meeting.members.map { "\($0) \(meeting.encounterID)" } }
        var granted = try await counts(admin, bonus, encounters.started)
        let patience = ContinuousClock.now + .seconds(60)
        while expected.contains(where: { granted[$0] == nil }) && ContinuousClock.now < patience {
            try await Task.sleep(for: .milliseconds(250))
            granted = try await counts(admin, bonus, encounters.started)
        }
        points.audited = expected.count
        points.lost = expected.filter { granted[$0] == nil }.count
        points.duplicated = granted.values.filter { $0 > 1 }.count
        points.notes = ["\(joined.count) encounters joined of \(encounters.started.count) started"]
        audit.lines.append(points)
        return audit
    }
}
