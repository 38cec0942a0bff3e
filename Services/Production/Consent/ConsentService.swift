import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// `rendezvous.production.v1.Consent`: the consent ritual. Texts are read by every member and
/// published by producers (P5); records are inserted by producers and read by producers and
/// their participant (P6); nothing updates or deletes one.
struct ConsentService: ConsentProvider {
    let pool: PostgresPool
    let settings: ProductionSettings

    func getCurrentConsentText(_ request: Production.GetCurrentConsentTextRequest, context: ServerCallContext) async throws
        -> Production.ConsentTextVersion {
        let caller = try ProductionCaller(context, settings: settings)
        let current = try await pool.withConnection { try await ConsentStore.current(app: caller.app, on: $0) }
        guard let current else { throw ProductionError.noConsentText }
        return current
    }

    func publishConsentText(_ request: Production.PublishConsentTextRequest, context: ServerCallContext) async throws
        -> Production.ConsentTextVersion {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        guard (1...50_000).contains(request.text.count),
              !request.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ProductionError.invalid("text must be 1-50,000 characters")
        }
        return try await pool.withTransaction { try await ConsentStore.publish(request.text, app: caller.app, on: $0) }
    }

    func captureConsent(_ request: Production.CaptureConsentRequest, context: ServerCallContext) async throws
        -> Production.ConsentRecord {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        let participant = try RequestID.parse(request.participantAccountID, field: "participant_account_id")
        guard LegalName.isValid(request.typedName) else {
            throw ProductionError.invalid("typed_name must be a full legal name: at least two words of letters")
        }
        guard (1...200).contains(request.signatureMediaID.count) else { throw ProductionError.invalid("signature_media_id is required") }
        guard request.deviceInfo.count <= 200 else { throw ProductionError.invalid("device_info is at most 200 characters") }
        return try await pool.withTransaction { connection in
            guard let episode = try await EpisodeStore.find(episodeID, app: caller.app, lock: true, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            guard episode.castAccountIDs.contains(participant.lowercased) else { throw ProductionError.notCast }
            guard let current = try await ConsentStore.current(app: caller.app, on: connection) else {
                throw ProductionError.noConsentText
            }
            guard request.consentTextVersion == current.versionHash else {
                throw ProductionError.staleConsentText(current: current.versionHash)
            }
            guard let legalName = try await ConsentStore.legalName(of: participant, app: caller.app, on: connection),
                  LegalName.same(legalName, request.typedName) else {
                throw ProductionError.typedNameMismatch
            }
            var record = Production.ConsentRecord()
            record.episodeID = episode.id
            record.participantAccountID = participant.lowercased
            record.type = .signed
            record.typedName = LegalName.normalize(request.typedName)
            record.signatureMediaID = request.signatureMediaID
            record.consentTextVersion = current.versionHash
            record.deviceInfo = request.deviceInfo
            record.capturedBy = caller.id.lowercased
            return try await ConsentStore.insert(record, app: caller.app, on: connection)
        }
    }

    func revokeConsent(_ request: Production.RevokeConsentRequest, context: ServerCallContext) async throws
        -> Production.ConsentRecord {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        let participant = try RequestID.parse(request.participantAccountID, field: "participant_account_id")
        guard request.reason.count <= 500 else { throw ProductionError.invalid("reason is at most 500 characters") }
        return try await pool.withTransaction { connection in
            guard let episode = try await EpisodeStore.find(episodeID, app: caller.app, lock: true, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            guard try await ConsentStore.hasStandingConsent(episode: episodeID, participant: participant, on: connection),
                  let current = try await ConsentStore.current(app: caller.app, on: connection) else {
                throw ProductionError.noStandingConsent
            }
            var record = Production.ConsentRecord()
            record.episodeID = episode.id
            record.participantAccountID = participant.lowercased
            record.type = .revocation
            record.consentTextVersion = current.versionHash
            record.deviceInfo = request.reason
            record.capturedBy = caller.id.lowercased
            return try await ConsentStore.insert(record, app: caller.app, on: connection)
        }
    }

    func listConsentRecords(_ request: Production.ListConsentRecordsRequest, context: ServerCallContext) async throws
        -> Production.ListConsentRecordsResponse {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        let records = try await pool.withConnection { connection in
            guard try await EpisodeStore.find(episodeID, app: caller.app, on: connection) != nil else {
                throw ProductionError.episodeNotFound
            }
            return try await ConsentStore.records(episode: episodeID, on: connection)
        }
        return Production.ListConsentRecordsResponse(records: records)
    }

    func listMyConsentRecords(_ request: Production.ListMyConsentRecordsRequest, context: ServerCallContext) async throws
        -> Production.ListConsentRecordsResponse {
        let caller = try ProductionCaller(context, settings: settings)
        let records = try await pool.withConnection { connection in
            try await ConsentStore.records(participant: caller.id, app: caller.app, on: connection)
        }
        return Production.ListConsentRecordsResponse(records: records)
    }
}
