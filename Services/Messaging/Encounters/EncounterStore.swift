import Contracts
import Foundation
import Postgres
import Runtime

/// One row of `messaging.encounters`, read under its row lock with the database's clock (`now`,
/// Unix microseconds): every rule compares deadlines kept in the row against that clock, never
/// a client's. "starter" started it, "joiner" joined it.
struct EncounterRow: Sendable {
    enum Stage: Int16 {
        case waiting = 1, chatting, proposed, meeting, inPerson, closing, resolved, ended
    }

    enum Outcome: Int16 {
        case none = 0, accepted, declined, timedOut
    }

    let id: UUID
    let app: String
    let starter: UUID
    var joiner: UUID?
    var stage: Stage
    var startedAt: Int64?
    var openingPrompt: String?
    var starterMessages: Int32
    var joinerMessages: Int32
    var meaningfulAt: Int64?
    var proposer: UUID?
    var acceptDeadline: Int64?
    var outcome: Outcome
    var reflectionPrompt: String?
    var meetupDescription: String?
    var starterArrived: Bool
    var joinerArrived: Bool
    var handshakeDeadline: Int64?
    var starterCode: String?
    var joinerCode: String?
    var inPersonPrompt: String?
    var inPersonEndsAt: Int64?
    var starterArtifact: String?
    var joinerArtifact: String?
    var artifact: String?
    var resonanceOpensAt: Int64?
    var starterResonance: Int16?
    var joinerResonance: Int16?
    var multiplierGranted: Bool
    /// Whether the `meaningful` step went out.
    var meaningfulAnnounced: Bool
    /// The database's clock in the transaction that read the row.
    let now: Int64

    func isStarter(_ account: UUID) -> Bool { account == starter }
    func isParticipant(_ account: UUID) -> Bool { account == starter || account == joiner }
    /// The other side of `account` (nil while nobody joined).
    func other(of account: UUID) -> UUID? { isStarter(account) ? joiner : starter }
    var participants: [UUID] { [starter] + (joiner.map { [$0] } ?? []) }

    func messages(of account: UUID) -> Int32 { isStarter(account) ? starterMessages : joinerMessages }
    func code(of account: UUID) -> String? { isStarter(account) ? starterCode : joinerCode }
    func arrived(_ account: UUID) -> Bool { isStarter(account) ? starterArrived : joinerArrived }
    func artifact(of account: UUID) -> String? { isStarter(account) ? starterArtifact : joinerArtifact }
    func resonance(of account: UUID) -> Int16? { isStarter(account) ? starterResonance : joinerResonance }

    /// Whether a deadline of the row's stage has passed (`EncounterStore.settle` resolves it).
    var deadlinePassed: Bool {
        switch stage {
        case .proposed: acceptDeadline.map { now >= $0 } ?? false
        case .meeting: handshakeDeadline.map { now >= $0 } ?? false
        case .inPerson: inPersonEndsAt.map { now >= $0 } ?? false
        default: false
        }
    }

    /// Whether the interaction is meaningful now and no `meaningful` step said so yet.
    func meaningfulUnannounced(minimumMessages: Int32) -> Bool {
        stage == .chatting && !meaningfulAnnounced && isMeaningful(minimumMessages: minimumMessages)
    }

    /// Whether a Convergence may be proposed now.
    func isMeaningful(minimumMessages: Int32) -> Bool {
        guard let meaningfulAt else { return false }
        return now >= meaningfulAt && starterMessages >= minimumMessages && joinerMessages >= minimumMessages
    }

    /// `account`'s view (encounters.proto `Encounter`).
    func view(for account: UUID, minimumMessages: Int32) -> Encounters.Encounter {
        var view = Encounters.Encounter()
        view.encounterID = id.uuidString.lowercased()
        view.stage = Encounters.EncounterStage(rawValue: Int32(stage.rawValue))
        view.startedByMe = isStarter(account)
        view.otherAccountID = other(of: account)?.uuidString.lowercased() ?? ""
        view.startedAt = startedAt.map { Timestamp(microseconds: $0) }
        view.openingPrompt = openingPrompt ?? ""
        view.myMessages = messages(of: account)
        if let other = other(of: account) { view.theirMessages = messages(of: other) }
        view.meaningfulAt = meaningfulAt.map { Timestamp(microseconds: $0) }
        view.meaningful = stage == .chatting && isMeaningful(minimumMessages: minimumMessages)
        view.proposedByMe = proposer == account
        view.acceptDeadline = acceptDeadline.map { Timestamp(microseconds: $0) }
        view.convergenceOutcome = Encounters.ConvergenceOutcome(rawValue: Int32(outcome.rawValue))
        if proposer == account { view.reflectionPrompt = reflectionPrompt ?? "" }
        view.meetupDescription = meetupDescription ?? ""
        view.iArrived = arrived(account)
        if let other = other(of: account) { view.theyArrived = arrived(other) }
        view.handshakeDeadline = handshakeDeadline.map { Timestamp(microseconds: $0) }
        view.myCodeSubmitted = code(of: account) != nil
        view.inPersonPrompt = inPersonPrompt ?? ""
        view.inPersonEndsAt = inPersonEndsAt.map { Timestamp(microseconds: $0) }
        view.artifact = artifact ?? ""
        view.myArtifactSubmitted = self.artifact(of: account) != nil
        view.resonanceOpensAt = resonanceOpensAt.map { Timestamp(microseconds: $0) }
        view.myResonance = resonance(of: account).map(Int32.init) ?? -1
        if let other = other(of: account) { view.theirResonanceSubmitted = resonance(of: other) != nil }
        view.multiplierGranted = multiplierGranted
        view.serverTime = Timestamp(microseconds: now)
        return view
    }
}

/// What a step produced besides the row's new state: steps for both sides' realtime streams and
/// awards for the points ledger, written in the step's transaction.
struct EncounterEffects: Sendable {
    var steps: [String] = []
    var awards: [(account: UUID, reason: Encounters.EncounterAwardReason)] = []
}

/// `messaging.encounters`, the award record `messaging.encounter_awards`, the prompt catalogue
/// `messaging.encounter_prompts`, and the events a step writes (messaging's outbox for awards,
/// the realtime feed for steps).
struct EncounterStore: Sendable {
    let feed: RealtimeFeed
    let outbox: Outbox
    let settings: EncounterSettings

    private static let columns = """
        id, app, starter_id, joiner_id, stage, \(UnixMicroseconds.sql("started_at")), opening_prompt,
        starter_messages, joiner_messages, \(UnixMicroseconds.sql("meaningful_at")), proposer_id,
        \(UnixMicroseconds.sql("accept_deadline")), outcome, reflection_prompt, meetup_description, starter_arrived,
        joiner_arrived, \(UnixMicroseconds.sql("handshake_deadline")), starter_code, joiner_code, in_person_prompt,
        \(UnixMicroseconds.sql("in_person_ends_at")), starter_artifact, joiner_artifact, artifact,
        \(UnixMicroseconds.sql("resonance_opens_at")), starter_resonance, joiner_resonance, multiplier_granted,
        meaningful_announced, \(UnixMicroseconds.sql("now()"))
        """

    /// Registers a new encounter started by `account`.
    func create(app: String, starter: UUID, on connection: Connection) async throws -> EncounterRow {
        let rows = try await connection.query("""
            INSERT INTO messaging.encounters (id, app, starter_id) VALUES ($1, $2, $3) RETURNING \(Self.columns)
            """, [.uuid(UUID.random()), .text(app), .uuid(starter)])
        return try Self.row(rows[0])
    }

    /// Encounter `id` of `app`, locked for the transaction when `lock`; ENCOUNTER_NOT_FOUND when
    /// `app` has none with the id.
    func load(_ id: UUID, app: String, lock: Bool, on connection: Connection) async throws -> EncounterRow {
        let rows = try await connection.query("SELECT \(Self.columns) FROM messaging.encounters WHERE id = $1 \(lock ? "FOR UPDATE" : "")",
                                              [.uuid(id)])
        guard let first = rows.first else { throw EncounterError.notFound }
        let row = try Self.row(first)
        guard row.app == app else { throw EncounterError.notFound }
        return row
    }

    private static func row(_ row: PostgresRow) throws -> EncounterRow {
        EncounterRow(
            id: try row.decode(0), app: try row.decode(1), starter: try row.decode(2), joiner: try row.decode(3),
            stage: EncounterRow.Stage(rawValue: try row.decode(4)) ?? .ended, startedAt: try row.decode(5),
            openingPrompt: try row.decode(6), starterMessages: try row.decode(7), joinerMessages: try row.decode(8),
            meaningfulAt: try row.decode(9), proposer: try row.decode(10), acceptDeadline: try row.decode(11),
            outcome: EncounterRow.Outcome(rawValue: try row.decode(12)) ?? .none, reflectionPrompt: try row.decode(13),
            meetupDescription: try row.decode(14), starterArrived: try row.decode(15), joinerArrived: try row.decode(16),
            handshakeDeadline: try row.decode(17), starterCode: try row.decode(18), joinerCode: try row.decode(19),
            inPersonPrompt: try row.decode(20), inPersonEndsAt: try row.decode(21), starterArtifact: try row.decode(22),
            joinerArtifact: try row.decode(23), artifact: try row.decode(24), resonanceOpensAt: try row.decode(25),
            starterResonance: try row.decode(26), joinerResonance: try row.decode(27), multiplierGranted: try row.decode(28),
            meaningfulAnnounced: try row.decode(29), now: try row.decode(30))
    }

    /// Writes the row's state back (the caller holds its lock).
    func save(_ row: EncounterRow, on connection: Connection) async throws {
        func time(_ value: Int64?) -> PostgresValue { .int64(value) }
        _ = try await connection.execute("""
            UPDATE messaging.encounters SET
                joiner_id = $2, stage = $3, started_at = to_timestamp($4::int8 / 1000000.0), opening_prompt = $5,
                starter_messages = $6, joiner_messages = $7, meaningful_at = to_timestamp($8::int8 / 1000000.0),
                proposer_id = $9, accept_deadline = to_timestamp($10::int8 / 1000000.0), outcome = $11,
                reflection_prompt = $12, meetup_description = $13, starter_arrived = $14, joiner_arrived = $15,
                handshake_deadline = to_timestamp($16::int8 / 1000000.0), starter_code = $17, joiner_code = $18,
                in_person_prompt = $19, in_person_ends_at = to_timestamp($20::int8 / 1000000.0), starter_artifact = $21,
                joiner_artifact = $22, artifact = $23, resonance_opens_at = to_timestamp($24::int8 / 1000000.0),
                starter_resonance = $25, joiner_resonance = $26, multiplier_granted = $27, meaningful_announced = $28,
                updated_at = now()
            WHERE id = $1
            """, [.uuid(row.id), .uuid(row.joiner), .int16(row.stage.rawValue), time(row.startedAt), .text(row.openingPrompt),
                  .int32(row.starterMessages), .int32(row.joinerMessages), time(row.meaningfulAt), .uuid(row.proposer),
                  time(row.acceptDeadline), .int16(row.outcome.rawValue), .text(row.reflectionPrompt),
                  .text(row.meetupDescription), .bool(row.starterArrived), .bool(row.joinerArrived),
                  time(row.handshakeDeadline), .text(row.starterCode), .text(row.joinerCode), .text(row.inPersonPrompt),
                  time(row.inPersonEndsAt), .text(row.starterArtifact), .text(row.joinerArtifact), .text(row.artifact),
                  time(row.resonanceOpensAt), .int16(row.starterResonance), .int16(row.joinerResonance),
                  .bool(row.multiplierGranted), .bool(row.meaningfulAnnounced)])
    }

    /// A Level-1 prompt of `kind` (opening, reflection, in_person) from the catalogue, the same
    /// one for the same encounter.
    func prompt(_ kind: String, for encounter: UUID, on connection: Connection) async throws -> String {
        let rows = try await connection.query("""
            SELECT text FROM messaging.encounter_prompts WHERE level = 1 AND kind = $1 ORDER BY md5(id::text || $2::text) LIMIT 1
            """, [.text(kind), .text(encounter.uuidString)])
        return try rows.first?.decode(0) ?? ""
    }

    /// Records the step's awards (each once per encounter, account and reason: one already
    /// recorded writes nothing) with an `EncounterAwardEarned` event each, and tells both sides
    /// of each step.
    func emit(_ effects: EncounterEffects, row: EncounterRow, on connection: Connection) async throws {
        for award in effects.awards {
            let inserted = try await connection.query("""
                INSERT INTO messaging.encounter_awards (encounter_id, account_id, reason) VALUES ($1, $2, $3)
                ON CONFLICT DO NOTHING RETURNING encounter_id
                """, [.uuid(row.id), .uuid(award.account), .int16(Int16(award.reason.rawValue))])
            guard !inserted.isEmpty else { continue }
            let event = Encounters.EncounterAwardEarned(encounterID: row.id.uuidString.lowercased(),
                                                        accountID: award.account.uuidString.lowercased(),
                                                        reason: award.reason, app: row.app,
                                                        earnedAt: Timestamp(microseconds: row.now))
            try await outbox.appendAtCommit(OutboxEvent(type: "EncounterAwardEarned", app: row.app,
                                                        aggregateID: row.id.uuidString.lowercased(),
                                                        payload: event.serializedBytes()), on: connection)
        }
        for step in effects.steps {
            for account in row.participants {
                var event = Realtime.RealtimeEvent()
                event.event = .encounterStep(Realtime.EncounterStep(
                    encounterID: row.id.uuidString.lowercased(), step: step,
                    encounter: row.view(for: account, minimumMessages: settings.minimumMessages)))
                try await feed.publish(event, type: "EncounterStep", app: row.app, to: [account], on: connection)
            }
        }
    }

    /// Resolves whatever deadline of `row` has passed by its clock: a chat turned meaningful
    /// (`announceMeaningful`), a Convergence not answered in time (the proposer's reflection
    /// prompt and courage), a handshake window gone by, an in-person timer run out (session
    /// completion for both).
    func settle(_ row: inout EncounterRow, _ effects: inout EncounterEffects, on connection: Connection) async throws {
        defer { announceMeaningful(&row, &effects) }
        guard row.deadlinePassed else { return }
        switch row.stage {
        case .proposed:
            guard let deadline = row.acceptDeadline, row.now >= deadline, let proposer = row.proposer else { return }
            row.stage = .chatting
            row.outcome = .timedOut
            row.reflectionPrompt = try await prompt("reflection", for: row.id, on: connection)
            effects.awards.append((proposer, .courage))
            effects.steps.append("convergence_timed_out")
        case .meeting:
            guard let deadline = row.handshakeDeadline, row.now >= deadline else { return }
            row.stage = .ended
            effects.steps.append("handshake_expired")
        case .inPerson:
            guard let ends = row.inPersonEndsAt, row.now >= ends else { return }
            row.stage = .closing
            for account in row.participants { effects.awards.append((account, .sessionCompletion)) }
            effects.steps.append("in_person_completed")
        default:
            return
        }
    }

    /// The `meaningful` step, once, when the chat has just become meaningful: by the clock
    /// (`settle`, from the sweep or the first call after meaningful_at) or by the last message
    /// a side reports (after the step).
    func announceMeaningful(_ row: inout EncounterRow, _ effects: inout EncounterEffects) {
        guard row.meaningfulUnannounced(minimumMessages: settings.minimumMessages) else { return }
        row.meaningfulAnnounced = true
        effects.steps.append("meaningful")
    }

    /// Settles every encounter whose deadline has passed that no other transaction holds (other
    /// instances' sweeps and calls skip what this one locked, and find it settled after).
    func sweep(pool: PostgresPool, limit: Int = 100) async throws -> Int {
        try await pool.withTransaction { connection in
            let due = try await connection.query("""
                SELECT id FROM messaging.encounters
                WHERE (stage = 3 AND accept_deadline <= now()) OR (stage = 4 AND handshake_deadline <= now())
                   OR (stage = 5 AND in_person_ends_at <= now())
                   OR (stage = 2 AND NOT meaningful_announced AND meaningful_at <= now()
                       AND starter_messages >= $2 AND joiner_messages >= $2)
                LIMIT $1 FOR UPDATE SKIP LOCKED
                """, [.int(limit), .int32(settings.minimumMessages)])
            for item in due {
                let id: UUID = try item.decode(0)
                let rows = try await connection.query("SELECT \(Self.columns) FROM messaging.encounters WHERE id = $1", [.uuid(id)])
                guard let first = rows.first else { continue }
                var row = try Self.row(first)
                var effects = EncounterEffects()
                try await settle(&row, &effects, on: connection)
                try await save(row, on: connection)
                try await emit(effects, row: row, on: connection)
            }
            return due.count
        }
    }

    /// Sweeps every `interval` until cancelled.
    func sweepRegularly(every interval: Duration, pool: PostgresPool) async {
        while !Task.isCancelled {
            _ = try? await sweep(pool: pool)
            try? await Task.sleep(for: interval)
        }
    }
}
