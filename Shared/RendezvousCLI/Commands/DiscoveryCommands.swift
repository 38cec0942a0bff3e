import ArgumentParser
import Contracts
import GatewayClient

/// `rendezvous feed`: the ranked feed as a table.
struct FeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "feed", abstract: "Show your feed of profiles to swipe on.")
    @OptionGroup var options: GlobalOptions
    @Option(name: .customLong("page-size"), help: "Cards per page (0: the server's default).") var pageSize: Int32 = 0
    @Option(name: .customLong("page-token"), help: "The next_page_token of a previous page.") var pageToken = ""

    func run() async throws {
        try await options.withClient { client, output in
            let page = try await client.discovery.feed(pageSize: pageSize, pageToken: pageToken)
            let cards: [JSONObject] = page.cards.map { card in
                [
                    "account_id": card.accountID, "public_name": card.publicName, "age": Int(card.age), "bio": card.bio,
                    "title": card.title, "tags": card.tags, "shared_tags": card.sharedTags, "neighborhood": card.neighborhood,
                    "distance_meters": card.distanceMeters, "photo_ids": card.photoIDs, "verified": card.verified,
                    "super_liked_you": card.superLikedYou, "mutual_connections": Int(card.mutualConnections),
                ]
            }
            output.emit(["cards": cards, "next_page_token": page.nextPageToken]) {
                guard !page.cards.isEmpty else { return "the feed is empty" }
                let rows = page.cards.map { card in
                    [card.accountID, card.publicName, card.age > 0 ? String(card.age) : "", card.title, card.neighborhood,
                     card.distanceMeters > 0 ? String(format: "%.1f km", card.distanceMeters / 1000) : "",
                     (card.verified ? "verified " : "") + (card.superLikedYou ? "super-liked you" : "")]
                }
                let table = Output.table(["ID", "NAME", "AGE", "TITLE", "NEIGHBORHOOD", "DISTANCE", ""], rows)
                return page.nextPageToken.isEmpty ? table : table + "\nmore: --page-token \(page.nextPageToken)"
            }
        }
    }
}

/// `rendezvous swipe like|pass|super <account-id>`.
struct SwipeCommand: AsyncParsableCommand {
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case like, pass, superLike = "super"

        var swipe: Discovery.SwipeAction {
            switch self {
            case .like: .like
            case .pass: .pass
            case .superLike: .superLike
            }
        }
    }

    static let configuration = CommandConfiguration(commandName: "swipe", abstract: "Like, pass or super-like a profile from your feed.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "like, pass or super.") var action: Action
    @Argument(help: "The profile's account id (from `rendezvous feed`).") var accountID: String

    func run() async throws {
        try await options.withClient { client, output in
            let response = try await client.discovery.swipe(accountID: accountID, action.swipe)
            var object: JSONObject = ["account_id": accountID, "action": action.rawValue]
            if let match = response.match { object["match"] = MatchJSON.make(match) }
            if let quota = response.quota {
                object["quota"] = ["likes_remaining": Int(quota.likesRemaining), "super_likes_remaining": Int(quota.superLikesRemaining),
                                   "resets_at": isoJSON(quota.resetsAt), "tier": quota.tier] as JSONObject
            }
            output.emit(object) {
                let verb = switch action {
                case .like: "liked"
                case .pass: "passed"
                case .superLike: "super-liked"
                }
                var lines = ["\(verb) \(accountID)"]
                if let match = response.match { lines.append("It's a match! \(match.publicName) — match \(match.matchID)") }
                if let quota = response.quota {
                    lines.append("likes left today: \(quota.likesRemaining), super likes: \(quota.superLikesRemaining)")
                }
                return lines.joined(separator: "\n")
            }
        }
    }
}

/// `rendezvous matches`.
struct MatchesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "matches", abstract: "List your matches.")
    @OptionGroup var options: GlobalOptions
    @Option(name: .customLong("page-token")) var pageToken = ""

    func run() async throws {
        try await options.withClient { client, output in
            let page = try await client.discovery.matches(pageToken: pageToken)
            output.emit(["matches": page.matches.map(MatchJSON.make), "next_page_token": page.nextPageToken]) {
                guard !page.matches.isEmpty else { return "no matches yet" }
                return Output.table(["MATCH", "WITH", "NAME", "SINCE"], page.matches.map {
                    [$0.matchID, $0.accountID, $0.publicName + ($0.superLike ? " ★" : ""), iso($0.matchedAt)]
                })
            }
        }
    }
}

enum MatchJSON {
    static func make(_ match: Discovery.Match) -> JSONObject {
        ["match_id": match.matchID, "account_id": match.accountID, "public_name": match.publicName,
         "photo_ids": match.photoIDs, "matched_at": isoJSON(match.matchedAt), "super_like": match.superLike]
    }
}
