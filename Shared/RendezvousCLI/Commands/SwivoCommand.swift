import ArgumentParser
import Contracts
import GatewayClient

/// `rendezvous swivo …`: group swipe sessions (Swivo). Runs in the swivo app unless --app says otherwise.
struct SwivoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swivo", abstract: "Swivo group sessions: create, join by code, swipe the deck, watch for the match.",
        subcommands: [Categories.self, Create.self, Join.self, Show.self, Deck.self, Swipe.self, Close.self, Watch.self])
    static let app = "swivo"

    struct Categories: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the categories a session can be about.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withClient(app: SwivoCommand.app) { client, output in
                let categories = try await client.groupSessions.categories()
                output.emit(["categories": categories.map {
                    ["category_id": $0.categoryID, "name": $0.name, "icon": $0.icon, "option_count": Int($0.optionCount)] as JSONObject
                }]) {
                    Output.table(["CATEGORY", "NAME", "OPTIONS"], categories.map { [$0.categoryID, "\($0.icon) \($0.name)", String($0.optionCount)] })
                }
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a session; share its invite code.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The category id (from `rendezvous swivo categories`).") var categoryID: String
        @Option(help: "How many participants must like an option for a match.") var quorum: Int32 = 2

        func run() async throws {
            try await options.withClient(app: SwivoCommand.app) { client, output in
                let session = try await client.groupSessions.create(categoryID: categoryID, quorum: quorum)
                output.emit(SwivoJSON.session(session)) { SwivoJSON.text(session) }
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Join a session by its invite code.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The invite code.") var code: String

        func run() async throws {
            try await options.withClient(app: SwivoCommand.app) { client, output in
                let joined = try await client.groupSessions.join(inviteCode: code)
                let session = joined.session ?? Sessions.GroupSession()
                var object = SwivoJSON.session(session)
                object["read_only"] = joined.readOnly
                output.emit(object) { SwivoJSON.text(session) + (joined.readOnly ? "\n(read only: the session is full or over)" : "") }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a session.")
        @OptionGroup var options: GlobalOptions
        @Argument var sessionID: String

        func run() async throws {
            try await options.withClient(app: SwivoCommand.app) { client, output in
                let session = try await client.groupSessions.session(sessionID)
                output.emit(SwivoJSON.session(session)) { SwivoJSON.text(session) }
            }
        }
    }

    struct Deck: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a session's options and which you liked.")
        @OptionGroup var options: GlobalOptions
        @Argument var sessionID: String

        func run() async throws {
            try await options.withClient(app: SwivoCommand.app) { client, output in
                let deck = try await client.groupSessions.deck(sessionID)
                let liked = Set(deck.likedOptionIDs)
                output.emit(["session_id": deck.sessionID, "liked_option_ids": deck.likedOptionIDs,
                             "options": deck.options.map(SwivoJSON.option)]) {
                    Output.table(["OPTION", "LABEL", "LIKED"], deck.options.map { [$0.optionID, $0.label, liked.contains($0.optionID) ? "♥" : ""] })
                }
            }
        }
    }

    struct Swipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Like an option of the deck; says when it made the match.")
        @OptionGroup var options: GlobalOptions
        @Argument var sessionID: String
        @Argument(help: "The option id (from `rendezvous swivo deck`).") var optionID: String

        func run() async throws {
            try await options.withClient(app: SwivoCommand.app) { client, output in
                let response = try await client.groupSessions.like(optionID: optionID, in: sessionID)
                var object: JSONObject = ["match_found": response.matchFound]
                if let option = response.matchedOption { object["matched_option"] = SwivoJSON.option(option) }
                output.emit(object) {
                    response.matchFound ? "It's a match: \(response.matchedOption?.label ?? optionID)!" : "liked \(optionID)"
                }
            }
        }
    }

    struct Close: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close a session you created.")
        @OptionGroup var options: GlobalOptions
        @Argument var sessionID: String

        func run() async throws {
            try await options.withClient(app: SwivoCommand.app) { client, output in
                let session = try await client.groupSessions.close(sessionID)
                output.emit(SwivoJSON.session(session)) { SwivoJSON.text(session) }
            }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the session each time it changes, until it ends or Ctrl-C.")
        @OptionGroup var options: GlobalOptions
        @Argument var sessionID: String

        func run() async throws {
            try await options.withClient(app: SwivoCommand.app) { client, output in
                for try await session in client.groupSessions.watch(sessionID) {
                    output.emitLine(SwivoJSON.session(session)) { SwivoJSON.text(session) + "\n" }
                }
            }
        }
    }
}

enum SwivoJSON {
    static func status(_ status: Sessions.SessionStatus) -> String {
        switch status {
        case .open: "open"
        case .matched: "matched"
        case .closed: "closed"
        default: "unspecified"
        }
    }

    static func option(_ option: Sessions.SessionOption) -> JSONObject {
        ["option_id": option.optionID, "label": option.label, "image_url": option.imageURL]
    }

    static func session(_ session: Sessions.GroupSession) -> JSONObject {
        var object: JSONObject = [
            "session_id": session.sessionID, "category": session.category?.name ?? "", "quorum": Int(session.quorum),
            "status": status(session.status), "invite_code": session.inviteCode, "invite_link": session.inviteLink,
            "creator_id": session.creatorID, "participants": session.participants.map(\.accountID),
            "created_at": isoJSON(session.createdAt),
        ]
        if let matched = session.matchedOption { object["matched_option"] = Self.option(matched) }
        return object
    }

    static func text(_ session: Sessions.GroupSession) -> String {
        Output.fields([
            ("session", session.sessionID), ("category", session.category?.name ?? ""), ("status", status(session.status)),
            ("invite code", session.inviteCode), ("participants", "\(session.participants.count) (quorum \(session.quorum))"),
            ("match", session.matchedOption?.label ?? ""),
        ])
    }
}
