import Foundation
import OutboundHTTP
import Runtime

/// Whose an Instagram access token is, and whom that account follows and is followed by, asked of
/// a Graph-style endpoint (`RV_INSTAGRAM_GRAPH_URL`, default https://graph.instagram.com):
/// `GET /me?fields=id,username`, then `GET /me/following` and `GET /me/followers`, each answering
/// `{"data": [{"id": ...}], "paging": {"next": URL}}` (pages are followed only while they stay on
/// the endpoint, so the token never goes elsewhere). The token travels as Instagram expects it,
/// the `access_token` query parameter. The whole import has one time limit
/// (`RV_INSTAGRAM_TIMEOUT_MS`, default 5 s). Calls block: they run on `http`.
struct InstagramGraph: Sendable {
    struct Settings: Sendable {
        var baseURL = "https://graph.instagram.com"
        var timeout: Duration = .seconds(5)

        static let urlVariable = "RV_INSTAGRAM_GRAPH_URL"
        static let timeoutVariable = "RV_INSTAGRAM_TIMEOUT_MS"

        static func load(from environment: EnvironmentReader) throws(ConfigurationError) -> Settings {
            var settings = Settings()
            if let url = environment[urlVariable], !url.isEmpty {
                guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                    throw ConfigurationError(variable: urlVariable, message: "must be an http(s) URL")
                }
                settings.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
            }
            if let text = environment[timeoutVariable] {
                guard let milliseconds = Int(text), (100...60_000).contains(milliseconds) else {
                    throw ConfigurationError(variable: timeoutVariable, message: "must be 100-60000 milliseconds")
                }
                settings.timeout = .milliseconds(milliseconds)
            }
            return settings
        }
    }

    /// The token's Instagram account and the ids of the accounts it follows or is followed by.
    struct Account: Sendable, Equatable {
        var id: String
        var username: String
        var related: Set<String>
    }

    /// No import reads more related accounts than this, nor more pages per list.
    static let maximumRelated = 10_000
    static let maximumPages = 50

    let settings: Settings
    let http: BlockingWorkPool

    /// The account behind `token`; INSTAGRAM_TOKEN_INVALID when Instagram refuses it,
    /// INSTAGRAM_UNAVAILABLE when it cannot be asked within the time limit.
    func account(token: String) async throws(DiscoveryError) -> Account {
        let settings = self.settings
        let outcome: Result<Account, DiscoveryError>
        do {
            outcome = try await http.run { Result { () throws(DiscoveryError) in try Self.fetch(token: token, settings: settings) } }
        } catch {
            throw .instagramUnavailable(cause: "cancelled")
        }
        return try outcome.get()
    }

    private static func fetch(token: String, settings: Settings) throws(DiscoveryError) -> Account {
        let deadline = ContinuousClock.now + settings.timeout
        let query = "access_token=" + (token.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")
        let me = try get("\(settings.baseURL)/me?fields=id,username&\(query)", until: deadline)
        guard let id = identifier(me["id"]) else { throw .instagramUnavailable(cause: "malformed_answer") }
        var account = Account(id: id, username: me["username"] as? String ?? "", related: [])
        for list in ["following", "followers"] {
            var next: String? = "\(settings.baseURL)/me/\(list)?fields=id&limit=500&\(query)"
            var pages = 0
            while let url = next, pages < maximumPages, account.related.count < maximumRelated {
                let page = try get(url, until: deadline)
                pages += 1
                for entry in page["data"] as? [[String: Any]] ?? [] {
                    if let related = identifier(entry["id"]), related != id { account.related.insert(related) }
                }
                next = ((page["paging"] as? [String: Any])?["next"] as? String).flatMap {
                    $0.hasPrefix(settings.baseURL + "/") ? $0 : nil
                }
            }
        }
        return account
    }

    /// One GET within what is left until `deadline`, as a JSON object.
    private static func get(_ url: String, until deadline: ContinuousClock.Instant) throws(DiscoveryError) -> [String: Any] {
        let left = deadline - ContinuousClock.now
        guard left > .milliseconds(1) else { throw .instagramUnavailable(cause: "timed_out") }
        let response: OutboundHTTP.Response
        do {
            response = try OutboundHTTP.perform(.init(method: "GET", url: url, headers: [("Accept", "application/json")],
                                                      timeout: left))
        } catch .timedOut {
            throw .instagramUnavailable(cause: "timed_out")
        } catch {
            throw .instagramUnavailable(cause: "unreachable")
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        switch response.status {
        case 200:
            guard let object else { throw .instagramUnavailable(cause: "malformed_answer") }
            return object
        case 401, 403:
            throw .instagramTokenInvalid
        case 400 where isTokenError(object):
            throw .instagramTokenInvalid
        default:
            throw .instagramUnavailable(cause: "http_\(response.status)")
        }
    }

    /// Graph's answer to a bad token: `{"error": {"type": "OAuthException", "code": 190}}`.
    private static func isTokenError(_ object: [String: Any]?) -> Bool {
        guard let error = object?["error"] as? [String: Any] else { return false }
        return error["type"] as? String == "OAuthException" || identifier(error["code"]) == "190"
    }

    /// An id Graph sends as a string or, in older answers, a number.
    private static func identifier(_ value: Any?) -> String? {
        if let text = value as? String, !text.isEmpty, text.count <= 64 { return text }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
