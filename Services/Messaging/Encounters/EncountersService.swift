import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.messaging.v1.Encounters`: The Unseen's encounters, as the server witnesses them.
/// Rules are documented in encounters.proto. Every step locks the encounter's row, first
/// resolves any deadline that has passed by the database's clock (`EncounterStore.settle`),
/// then applies the caller's step; the row, its steps and its awards are written in one
/// transaction. A step refused after a deadline was resolved still commits the resolution.
struct EncountersService: EncountersProvider {
    let pool: PostgresPool
    let store: EncounterStore
    let settings: EncounterSettings

    /// What a step does to the locked, settled row. Throwing refuses the step with no change of
    /// its own; returning an error refuses it but keeps the changes (codes cleared on a mismatch).
    typealias Step = @Sendable (inout EncounterRow, inout EncounterEffects, UUID, Connection) async throws -> EncounterError?

    func startEncounter(_ request: Encounters.StartEncounterRequest,
                        context: ServerCallContext) async throws -> Encounters.Encounter {
        let (app, account) = try caller(context)
        return try await pool.withTransaction { connection in
            try await store.create(app: app, starter: account, on: connection).view(for: account,
                                                                                   minimumMessages: settings.minimumMessages)
        }
    }

    func joinEncounter(_ request: Encounters.JoinEncounterRequest,
                       context: ServerCallContext) async throws -> Encounters.Encounter {
        try await step(request.encounterID, context, participantsOnly: false) { [store, settings] row, effects, account, connection in
            if row.isParticipant(account), row.joiner != nil { return nil }
            guard !row.isStarter(account) else { throw EncounterError.ownEncounter }
            guard row.joiner == nil else { throw EncounterError.full }
            row.joiner = account
            row.stage = .chatting
            row.startedAt = row.now
            row.meaningfulAt = row.now + settings.meaningful.microseconds
            row.openingPrompt = try await store.prompt("opening", for: row.id, on: connection)
            for side in row.participants { effects.awards.append((side, .connectionBonus)) }
            effects.steps.append("joined")
            return nil
        }
    }

    func getEncounter(_ request: Encounters.GetEncounterRequest,
                      context: ServerCallContext) async throws -> Encounters.Encounter {
        // Polling devices take no row lock unless a deadline has passed and must be resolved.
        let (app, account) = try caller(context)
        guard let id = UUID(uuidString: request.encounterID) else { throw EncounterError.invalidEncounterID }
        let row = try await pool.withConnection { connection in
            try await store.load(id, app: app, lock: false, on: connection)
        }
        guard row.isParticipant(account) else { throw EncounterError.notAParticipant }
        guard row.deadlinePassed || row.meaningfulUnannounced(minimumMessages: settings.minimumMessages) else {
            return row.view(for: account, minimumMessages: settings.minimumMessages)
        }
        return try await step(request.encounterID, context) { _, _, _, _ in nil }
    }

    func reportMessages(_ request: Encounters.ReportMessagesRequest,
                        context: ServerCallContext) async throws -> Encounters.Encounter {
        guard (0...100_000).contains(request.sentCount) else { throw EncounterError.invalidMessageCount }
        return try await step(request.encounterID, context) { row, effects, account, _ in
            guard row.stage != .waiting else { throw EncounterError.wrongStage(row.stage.rawValue) }
            guard request.sentCount > row.messages(of: account) else { return nil }
            if row.isStarter(account) { row.starterMessages = request.sentCount } else { row.joinerMessages = request.sentCount }
            effects.steps.append("messages_reported")
            return nil
        }
    }

    func proposeConvergence(_ request: Encounters.ProposeConvergenceRequest,
                            context: ServerCallContext) async throws -> Encounters.Encounter {
        try await step(request.encounterID, context) { [settings] row, effects, account, _ in
            guard row.stage == .chatting, let other = row.other(of: account) else {
                throw EncounterError.wrongStage(row.stage.rawValue)
            }
            guard row.isMeaningful(minimumMessages: settings.minimumMessages) else {
                let left = max(0, ((row.meaningfulAt ?? row.now) - row.now + 999_999) / 1_000_000)
                throw EncounterError.notMeaningfulYet(secondsLeft: left,
                                                      mine: max(0, settings.minimumMessages - row.messages(of: account)),
                                                      theirs: max(0, settings.minimumMessages - row.messages(of: other)))
            }
            row.stage = .proposed
            row.proposer = account
            row.acceptDeadline = row.now + settings.accept.microseconds
            row.outcome = .none
            row.reflectionPrompt = nil
            effects.steps.append("convergence_proposed")
            return nil
        }
    }

    func answerConvergence(_ request: Encounters.AnswerConvergenceRequest,
                           context: ServerCallContext) async throws -> Encounters.Encounter {
        try await step(request.encounterID, context) { [store] row, effects, account, connection in
            guard row.stage == .proposed else {
                // A repeat from the invitee's other device gets the encounter as the first answer left it.
                if row.proposer != nil, row.proposer != account {
                    switch (row.outcome, request.accept) {
                    case (.accepted, true) where row.stage != .waiting: return nil
                    case (.declined, false): return nil
                    case (.timedOut, _) where row.stage == .chatting: throw EncounterError.acceptWindowClosed
                    default: break
                    }
                }
                throw EncounterError.wrongStage(row.stage.rawValue)
            }
            guard let proposer = row.proposer, proposer != account else { throw EncounterError.notTheInvitee }
            if request.accept {
                row.stage = .meeting
                row.outcome = .accepted
                effects.steps.append("convergence_accepted")
            } else {
                row.stage = .chatting
                row.outcome = .declined
                row.reflectionPrompt = try await store.prompt("reflection", for: row.id, on: connection)
                effects.awards.append((proposer, .courage))
                effects.steps.append("convergence_declined")
            }
            return nil
        }
    }

    func describeMeetup(_ request: Encounters.DescribeMeetupRequest,
                        context: ServerCallContext) async throws -> Encounters.Encounter {
        let description = request.description.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...500).contains(description.count) else { throw EncounterError.invalidMeetupDescription }
        return try await step(request.encounterID, context) { row, effects, account, _ in
            guard row.stage == .meeting, row.handshakeDeadline == nil else { throw EncounterError.wrongStage(row.stage.rawValue) }
            guard row.proposer == account else { throw EncounterError.notTheProposer }
            guard row.meetupDescription != description else { return nil }
            row.meetupDescription = description
            effects.steps.append("meetup_described")
            return nil
        }
    }

    func confirmArrival(_ request: Encounters.ConfirmArrivalRequest,
                        context: ServerCallContext) async throws -> Encounters.Encounter {
        try await step(request.encounterID, context) { [settings] row, effects, account, _ in
            guard row.stage == .meeting else { throw EncounterError.wrongStage(row.stage.rawValue) }
            guard row.meetupDescription != nil else { throw EncounterError.meetupNotDescribed }
            guard !row.arrived(account) else { return nil }
            if row.isStarter(account) { row.starterArrived = true } else { row.joinerArrived = true }
            if row.starterArrived && row.joinerArrived { row.handshakeDeadline = row.now + settings.handshake.microseconds }
            effects.steps.append("arrived")
            return nil
        }
    }

    func submitHandshakeCode(_ request: Encounters.SubmitHandshakeCodeRequest,
                             context: ServerCallContext) async throws -> Encounters.Encounter {
        let code = request.code.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (4...64).contains(code.count) else { throw EncounterError.invalidHandshakeCode }
        return try await step(request.encounterID, context) { [store, settings] row, effects, account, connection in
            if row.stage == .ended { throw EncounterError.handshakeExpired }
            guard row.stage == .meeting, row.handshakeDeadline != nil, let other = row.other(of: account) else {
                throw EncounterError.wrongStage(row.stage.rawValue)
            }
            if row.isStarter(account) { row.starterCode = code } else { row.joinerCode = code }
            guard let theirs = row.code(of: other) else {
                effects.steps.append("handshake_submitted")
                return nil
            }
            guard theirs == code else {
                row.starterCode = nil
                row.joinerCode = nil
                effects.steps.append("handshake_mismatch")
                return .handshakeCodeMismatch
            }
            row.stage = .inPerson
            row.inPersonPrompt = try await store.prompt("in_person", for: row.id, on: connection)
            let ends = row.now + settings.inPerson.microseconds
            row.inPersonEndsAt = ends
            row.resonanceOpensAt = ends + settings.cooldown.microseconds
            effects.steps.append("handshake_verified")
            return nil
        }
    }

    func submitArtifact(_ request: Encounters.SubmitArtifactRequest,
                        context: ServerCallContext) async throws -> Encounters.Encounter {
        let text = request.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...500).contains(text.count) else { throw EncounterError.invalidArtifact }
        return try await step(request.encounterID, context) { row, effects, account, _ in
            if row.stage == .inPerson { throw EncounterError.inPersonNotOver }
            guard row.stage == .closing || row.stage == .resolved, let other = row.other(of: account) else {
                throw EncounterError.wrongStage(row.stage.rawValue)
            }
            if let saved = row.artifact {
                guard saved == text else { throw EncounterError.wrongStage(row.stage.rawValue) }
                return nil
            }
            if row.isStarter(account) { row.starterArtifact = text } else { row.joinerArtifact = text }
            guard let theirs = row.artifact(of: other) else {
                effects.steps.append("artifact_submitted")
                return nil
            }
            guard theirs == text else {
                row.starterArtifact = nil
                row.joinerArtifact = nil
                effects.steps.append("artifact_mismatch")
                return .artifactMismatch
            }
            row.artifact = text
            effects.steps.append("artifact_saved")
            return nil
        }
    }

    func submitResonance(_ request: Encounters.SubmitResonanceRequest,
                         context: ServerCallContext) async throws -> Encounters.Encounter {
        guard (0...100).contains(request.score) else { throw EncounterError.invalidResonanceScore }
        return try await step(request.encounterID, context) { row, effects, account, _ in
            if row.stage == .inPerson { throw EncounterError.cooldownNotOver }
            guard row.stage == .closing || row.stage == .resolved, let other = row.other(of: account) else {
                throw EncounterError.wrongStage(row.stage.rawValue)
            }
            guard row.resonance(of: account) == nil else { throw EncounterError.resonanceAlreadySubmitted }
            guard let opens = row.resonanceOpensAt, row.now >= opens else { throw EncounterError.cooldownNotOver }
            let score = Int16(request.score)
            if row.isStarter(account) { row.starterResonance = score } else { row.joinerResonance = score }
            effects.steps.append("resonance_submitted")
            guard let theirs = row.resonance(of: other) else { return nil }
            row.stage = .resolved
            if score >= EncounterSettings.resonanceThreshold && theirs >= EncounterSettings.resonanceThreshold {
                row.multiplierGranted = true
                for side in row.participants { effects.awards.append((side, .resonanceMultiplier)) }
            }
            effects.steps.append("resolved")
            return nil
        }
    }

    /// Runs `action` on encounter `encounterID` for the caller, as the type's documentation says.
    private func step(_ encounterID: String, _ context: ServerCallContext, participantsOnly: Bool = true,
                      _ action: Step) async throws -> Encounters.Encounter {
        let (app, account) = try caller(context)
        guard let id = UUID(uuidString: encounterID) else { throw EncounterError.invalidEncounterID }
        let result: Result<Encounters.Encounter, EncounterError> = try await pool.withTransaction { connection in
            var row = try await store.load(id, app: app, lock: true, on: connection)
            var effects = EncounterEffects()
            try await store.settle(&row, &effects, on: connection)
            let settled = (row, effects)
            var refusal: EncounterError?
            do {
                if participantsOnly && !row.isParticipant(account) { throw EncounterError.notAParticipant }
                refusal = try await action(&row, &effects, account, connection)
            } catch let error as EncounterError {
                (row, effects) = settled
                refusal = error
            }
            store.announceMeaningful(&row, &effects)
            if !effects.steps.isEmpty || !effects.awards.isEmpty {
                try await store.save(row, on: connection)
                try await store.emit(effects, row: row, on: connection)
            }
            if let refusal { return .failure(refusal) }
            return .success(row.view(for: account, minimumMessages: settings.minimumMessages))
        }
        return try result.get()
    }

    /// The caller's app (one with encounters) and account.
    private func caller(_ context: ServerCallContext) throws -> (String, UUID) {
        let caller = try context.requireAccount()
        guard settings.apps.contains(caller.app) else { throw EncounterError.appNotSupported(caller.app) }
        return (caller.app, try caller.accountUUID())
    }
}
