import Contracts
import Foundation
import Postgres
import Runtime

/// Applications: the member's wizard draft, its submission, and the producers' pipeline. Every
/// change that others must hear of appends its event in the same transaction.
struct ApplicationStore: Sendable {
    let outbox: Outbox

    static let columns = """
        id, account_id, status, steps, legal_name, age, bio, neighborhood, why_me, quiz_questions, quiz_answers,
        photo_ids, video_selfie_id, consent_acknowledged,
        ARRAY(SELECT c.episode_id FROM production.cast_members c WHERE c.application_id = production.applications.id
              ORDER BY c.cast_at), \(UnixMicroseconds.sql("created_at")),
        \(UnixMicroseconds.sql("submitted_at")), \(UnixMicroseconds.sql("updated_at"))
        """

    /// The member's application, locked for this transaction, created as an empty draft first
    /// when `create` and there is none.
    func lockOwn(app: String, account: UUID, create: Bool, on connection: Connection) async throws
        -> Production.Application? {
        if create {
            try await connection.query("""
                INSERT INTO production.applications (id, app, account_id) VALUES ($1, $2, $3)
                ON CONFLICT (app, account_id) DO NOTHING
                """, [.uuid(UUID.random()), .text(app), .uuid(account)])
        }
        let rows = try await connection.query("""
            SELECT \(Self.columns) FROM production.applications WHERE app = $1 AND account_id = $2 FOR UPDATE
            """, [.text(app), .uuid(account)])
        return try rows.first.map(Self.application)
    }

    func own(app: String, account: UUID, on connection: Connection) async throws -> Production.Application? {
        let rows = try await connection.query("""
            SELECT \(Self.columns) FROM production.applications WHERE app = $1 AND account_id = $2
            """, [.text(app), .uuid(account)])
        return try rows.first.map(Self.application)
    }

    /// One application of `app`; `lock` holds it for this transaction.
    func find(_ id: UUID, app: String, lock: Bool = false, on connection: Connection) async throws -> Production.Application? {
        let rows = try await connection.query("""
            SELECT \(Self.columns) FROM production.applications WHERE id = $1 AND app = $2 \(lock ? "FOR UPDATE" : "")
            """, [.uuid(id), .text(app)])
        return try rows.first.map(Self.application)
    }

    /// Saves one wizard step of application `id` and marks the step done.
    func save(_ step: Production.SaveApplicationRequest.Step, into id: UUID, on connection: Connection) async throws
        -> Production.Application {
        let assignments: String
        let name: String
        var values: [PostgresValue] = [.uuid(id)]
        switch step {
        case .aboutYou(let about):
            name = "about_you"
            assignments = "legal_name = $3, age = $4, bio = $5, neighborhood = $6"
            values += [.text(LegalName.normalize(about.legalName)), .int32(about.age), .text(about.bio),
                       .text(about.neighborhood)]
        case .story(let story):
            name = "story"
            assignments = "why_me = $3, quiz_questions = $4, quiz_answers = $5"
            let questions = story.quizAnswers.keys.sorted()
            values += [.text(story.whyMe), .textArray(questions), .textArray(questions.map { story.quizAnswers[$0] ?? "" })]
        case .look(let look):
            name = "look"
            assignments = "photo_ids = $3, video_selfie_id = $4"
            values += [.textArray(look.photoIDs), .text(look.videoSelfieID)]
        case .consent(let consent):
            name = "consent"
            assignments = "consent_acknowledged = $3"
            values += [.bool(consent.acknowledged)]
        }
        values.insert(.text(name), at: 1)
        let rows = try await connection.query("""
            UPDATE production.applications
            SET \(assignments), updated_at = now(),
                steps = CASE WHEN $2 = ANY (steps) THEN steps ELSE steps || $2 END
            WHERE id = $1 RETURNING \(Self.columns)
            """, values)
        return try Self.application(rows[0])
    }

    /// Draft → pending, with ApplicationSubmitted.
    func submit(_ id: UUID, app: String, on connection: Connection) async throws -> Production.Application {
        let rows = try await connection.query("""
            UPDATE production.applications SET status = 2, submitted_at = now(), updated_at = now()
            WHERE id = $1 RETURNING \(Self.columns)
            """, [.uuid(id)])
        let application = try Self.application(rows[0])
        var event = Production.ApplicationSubmitted()
        event.applicationID = application.id
        event.app = app
        event.accountID = application.accountID
        event.submittedAt = application.submittedAt
        try await outbox.appendAtCommit(OutboxEvent(type: "ApplicationSubmitted", app: app, aggregateID: application.id,
                                                    payload: event.serializedBytes()), on: connection)
        return application
    }

    /// Moves an application in the pipeline, with ApplicationStatusChanged.
    func setStatus(of application: Production.Application, to status: Production.ApplicationStatus, app: String,
                   on connection: Connection) async throws -> Production.Application {
        let rows = try await connection.query("""
            UPDATE production.applications SET status = $2, updated_at = now() WHERE id = $1::uuid RETURNING \(Self.columns)
            """, [.text(application.id), .int16(Int16(status.rawValue))])
        let changed = try Self.application(rows[0])
        var event = Production.ApplicationStatusChanged()
        event.applicationID = changed.id
        event.app = app
        event.accountID = changed.accountID
        event.from = application.status
        event.to = status
        event.changedAt = changed.updatedAt
        try await outbox.appendAtCommit(OutboxEvent(type: "ApplicationStatusChanged", app: app, aggregateID: changed.id,
                                                    payload: event.serializedBytes()), on: connection)
        return changed
    }

    /// Casts the application's applicant in `episode` (once).
    func assign(_ application: UUID, account: UUID, to episode: UUID, on connection: Connection) async throws
        -> Production.Application {
        try await connection.query("""
            INSERT INTO production.cast_members (episode_id, account_id, application_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
            """, [.uuid(episode), .uuid(account), .uuid(application)])
        let rows = try await connection.query("""
            UPDATE production.applications SET updated_at = now() WHERE id = $1 RETURNING \(Self.columns)
            """, [.uuid(application)])
        return try Self.application(rows[0])
    }

    /// Submitted applications of `app`, newest submission first.
    func list(app: String, status: Production.ApplicationStatus, after cursor: PageCursor?, limit: Int,
              on connection: Connection) async throws -> [Production.Application] {
        let rows = try await connection.query("""
            SELECT \(Self.columns) FROM production.applications
            WHERE app = $1 AND status > 1 AND ($2 = 0 OR status = $2)
              AND ($3::int8 IS NULL OR (\(UnixMicroseconds.sql("submitted_at")), id) < ($3, $4::uuid))
            ORDER BY submitted_at DESC, id DESC LIMIT $5
            """, [.text(app), .int16(Int16(status.rawValue)), .int64(cursor?.microseconds), .uuid(cursor?.id),
                  .int(limit)])
        return try rows.map(Self.application)
    }

    static func application(_ row: PostgresRow) throws -> Production.Application {
        var application = Production.Application()
        application.id = try row.decode(0, as: UUID.self).lowercased
        application.accountID = try row.decode(1, as: UUID.self).lowercased
        application.status = Production.ApplicationStatus(rawValue: Int32(try row.decode(2, as: Int16.self)))
        let steps: [String] = try row.decode(3)
        application.completedSteps = ApplicationRules.steps.filter(steps.contains)
        if steps.contains("about_you") {
            application.aboutYou = Production.AboutYou(legalName: try row.decode(4), age: try row.decode(5),
                                                       bio: try row.decode(6), neighborhood: try row.decode(7))
        }
        if steps.contains("story") {
            let questions: [String] = try row.decode(9)
            let answers: [String] = try row.decode(10)
            application.story = Production.Story(whyMe: try row.decode(8),
                                                 quizAnswers: Dictionary(zip(questions, answers), uniquingKeysWith: { a, _ in a }))
        }
        if steps.contains("look") {
            application.look = Production.Look(photoIDs: try row.decode(11), videoSelfieID: try row.decode(12))
        }
        if steps.contains("consent") {
            application.consent = Production.ConsentAcknowledgement(acknowledged: try row.decode(13))
        }
        application.episodeIDs = try row.decode(14, as: [UUID].self).map(\.lowercased)
        application.episodeID = application.episodeIDs.last ?? ""
        application.createdAt = Timestamp(microseconds: try row.decode(15))
        if let submitted = try row.decode(16, as: Int64?.self) { application.submittedAt = Timestamp(microseconds: submitted) }
        application.updatedAt = Timestamp(microseconds: try row.decode(17))
        return application
    }
}
