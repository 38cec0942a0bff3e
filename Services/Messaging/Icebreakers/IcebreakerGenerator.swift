import Foundation
import Logging
import OutboundHTTP
import Postgres
import Runtime

/// The pluggable generator of a match's three conversation starters (seed 000's
/// fd-generate-icebreakers): an HTTP JSON endpoint — an LLM behind a URL and a key
/// (`RV_ICEBREAKER_URL`, `RV_ICEBREAKER_KEY`) — asked once per match with a 5 s timeout
/// (`RV_ICEBREAKER_TIMEOUT_MS`). The match opens at once with starters from the pool
/// (`IcebreakerPool`); the job here then asks the endpoint and, if it answers in time with three
/// starters while the conversation is still empty, replaces them (source `generator`). A stall,
/// an error or a bad answer leaves the pool's (source `pool`, the failure kept). Several
/// instances share the work through row leases.
///
/// The endpoint receives `{"match_id", "app", "members": [{"cuisines": [...]}, {...}], "count": 3,
/// "context": "..."}` with `Authorization: Bearer <key>` and answers
/// `{"icebreakers": ["...", "...", "..."]}`.
struct IcebreakerGenerator: Sendable {
    struct Settings: Sendable {
        var url: String
        var key: String
        var timeout: Duration = .seconds(5)

        static let urlVariable = "RV_ICEBREAKER_URL"
        static let keyVariable = "RV_ICEBREAKER_KEY"
        static let timeoutVariable = "RV_ICEBREAKER_TIMEOUT_MS"

        /// The generator's settings, or nil when no URL is configured (the pool alone then).
        static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> Settings? {
            guard let url = environment[urlVariable], !url.isEmpty else { return nil }
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw ConfigurationError(variable: urlVariable, message: "must be an http(s) URL")
            }
            var settings = Settings(url: url, key: environment[keyVariable] ?? "")
            if let text = environment[timeoutVariable] {
                guard let milliseconds = Int(text), (100...60_000).contains(milliseconds) else {
                    throw ConfigurationError(variable: timeoutVariable, message: "must be 100-60000 milliseconds")
                }
                settings.timeout = .milliseconds(milliseconds)
            }
            return settings
        }
    }

    /// What the pool's starters are replaced by: at most this long each.
    static let maximumLength = 300

    let settings: Settings
    let pool: PostgresPool
    let http: BlockingWorkPool
    let logger: Logger

    /// Works pending matches until cancelled, polling every `interval` when there is none.
    func run(every interval: Duration = .milliseconds(200)) async {
        while !Task.isCancelled {
            do {
                while try await generateOne() {}
            } catch {
                logger.warning("icebreaker generation failed", metadata: ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Takes one pending match (a lease of a minute, so a crashed instance's work is picked up
    /// again), asks the endpoint and records the outcome; false when none was pending.
    func generateOne() async throws -> Bool {
        let claimed = try await pool.withConnection { connection in
            try await connection.query("""
                UPDATE messaging.icebreakers i SET lease_until = now() + interval '1 minute'
                FROM (SELECT conversation_id FROM messaging.icebreakers
                      WHERE generation = 1 AND (lease_until IS NULL OR lease_until < now())
                      ORDER BY generated_at LIMIT 1 FOR UPDATE SKIP LOCKED) due
                WHERE i.conversation_id = due.conversation_id
                RETURNING i.conversation_id,
                    (SELECT app FROM messaging.conversations WHERE id = i.conversation_id),
                    ARRAY(SELECT coalesce(array_to_string(t.cuisines, ','), '') FROM messaging.members m
                          LEFT JOIN messaging.member_tastes t ON t.account_id = m.account_id
                          WHERE m.conversation_id = i.conversation_id ORDER BY m.account_id)
                """)
        }
        guard let row = claimed.first else { return false }
        let id = try row.decode(0, as: UUID.self)
        let app = try row.decode(1, as: String?.self) ?? ""
        let cuisines = try row.decode(2, as: [String].self).map { $0.split(separator: ",").map(String.init) }
        let outcome: Result<[String], OutboundHTTP.Failure>
        do {
            outcome = .success(try await ask(match: id, app: app, cuisines: cuisines))
        } catch let failure as OutboundHTTP.Failure {
            outcome = .failure(failure)
        } catch {
            outcome = .failure(.transport("\(error)"))
        }
        try await pool.withConnection { connection in
            switch outcome {
            case .success(let starters):
                // Only while nobody has written yet: starters are for an empty conversation.
                _ = try await connection.execute("""
                    UPDATE messaging.icebreakers i
                    SET starters = CASE WHEN c.last_sequence = 0 THEN $2 ELSE i.starters END,
                        source = CASE WHEN c.last_sequence = 0 THEN 'generator' ELSE i.source END,
                        generation = 2, lease_until = NULL, attempted_at = now(), failure = ''
                    FROM messaging.conversations c WHERE i.conversation_id = $1 AND c.id = $1
                    """, [.uuid(id), .textArray(starters)])
            case .failure(let failure):
                _ = try await connection.execute("""
                    UPDATE messaging.icebreakers SET generation = 3, lease_until = NULL, attempted_at = now(), failure = $2
                    WHERE conversation_id = $1
                    """, [.uuid(id), .text(failure.description)])
            }
        }
        return true
    }

    /// The endpoint's three starters for the match, or why not.
    private func ask(match: UUID, app: String, cuisines: [[String]]) async throws -> [String] {
        let payload: [String: Any] = [
            "match_id": match.uuidString.lowercased(), "app": app, "count": 3,
            "members": cuisines.map { ["cuisines": $0] },
            "context": "Two people who just matched on a dating app. Make the starters specific and playful.",
        ]
        let body = try JSONSerialization.data(withJSONObject: payload)
        var headers = [("Content-Type", "application/json"), ("Accept", "application/json")]
        if !settings.key.isEmpty { headers.append(("Authorization", "Bearer \(settings.key)")) }
        let request = OutboundHTTP.Request(url: settings.url, headers: headers, body: Array(body), timeout: settings.timeout)
        let response = try await http.run { () throws(OutboundHTTP.Failure) -> OutboundHTTP.Response in
            try OutboundHTTP.perform(request)
        }
        guard response.status == 200 else { throw OutboundHTTP.Failure.transport("the generator answered HTTP \(response.status)") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
              let starters = object["icebreakers"] as? [String] else {
            throw OutboundHTTP.Failure.transport("the generator's answer is not {\"icebreakers\": [...]}")
        }
        let cleaned = starters.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard cleaned.count == 3, cleaned.allSatisfy({ (1...Self.maximumLength).contains($0.count) }) else {
            throw OutboundHTTP.Failure.transport("the generator did not answer three starters of 1-\(Self.maximumLength) characters")
        }
        return cleaned
    }
}
