import ArgumentParser
import Contracts
import GatewayClient

/// `rendezvous firstdate …`: FirstDate's show through the production API. Viewers apply; hosts
/// (role host, set in identity) review applications, run seasons and episodes through the deal
/// and production pipelines, and read the P&L. Runs in the firstdate app unless --app says otherwise.
struct FirstDateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "firstdate", abstract: "FirstDate: apply to the show, or (hosts) cast and produce episodes.",
        subcommands: [Apply.self, Application.self, Applications.self, Review.self, Assign.self, Seasons.self, CreateSeason.self,
                      Episodes.self, CreateEpisode.self, Episode.self, Deal.self, Advance.self, ProfitAndLoss.self])
    static let app = "firstdate"

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save the steps of your application that are given, then submit it with --submit.")
        @OptionGroup var options: GlobalOptions
        @Option(name: .customLong("legal-name")) var legalName: String?
        @Option var age: Int32?
        @Option var bio: String?
        @Option var neighborhood: String?
        @Option(name: .customLong("why-me"), help: "Your story: why you.") var whyMe: String?
        @Option(help: "Quiz answers as question=answer, repeatable.") var answer: [String] = []
        @Option(name: .customLong("photo-ids"), help: "Your look: uploaded photo ids, comma-separated (`rendezvous photo upload`).")
        var photoIDs: String?
        @Option(name: .customLong("video-selfie"), help: "Your look: an uploaded video selfie's id.") var videoSelfie: String?
        @Flag(help: "Acknowledge the consent text (required before submitting).") var consent = false
        @Flag(help: "Submit the application after saving.") var submit = false

        func run() async throws {
            var steps: [Production.SaveApplicationRequest.Step] = []
            if legalName != nil || age != nil || bio != nil || neighborhood != nil {
                steps.append(.aboutYou(Production.AboutYou(legalName: legalName ?? "", age: age ?? 0, bio: bio ?? "",
                                                           neighborhood: neighborhood ?? "")))
            }
            if whyMe != nil || !answer.isEmpty {
                var answers: [String: String] = [:]
                for pair in answer {
                    guard let equals = pair.firstIndex(of: "=") else { throw ValidationError("--answer is question=answer") }
                    answers[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
                }
                steps.append(.story(Production.Story(whyMe: whyMe ?? "", quizAnswers: answers)))
            }
            if photoIDs != nil || videoSelfie != nil {
                let ids = (photoIDs ?? "").split(separator: ",").map(String.init)
                steps.append(.look(Production.Look(photoIDs: ids, videoSelfieID: videoSelfie ?? "")))
            }
            if consent { steps.append(.consent(Production.ConsentAcknowledgement(acknowledged: true))) }
            guard !steps.isEmpty || submit else { throw ValidationError("give a step (e.g. --legal-name, --why-me, --photo-ids, --consent) or --submit") }
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                var application: Production.Application?
                for step in steps { application = try await client.production.saveApplicationStep(step) }
                if submit { application = try await client.production.submitApplication() }
                let result = application ?? Production.Application()
                output.emit(FirstDateJSON.application(result)) { FirstDateJSON.text(result) }
            }
        }
    }

    struct Application: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show your application.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let application = try await client.production.myApplication()
                output.emit(FirstDateJSON.application(application)) { FirstDateJSON.text(application) }
            }
        }
    }

    struct Applications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hosts: list applications, optionally by status.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "pending, reviewing, shortlisted, selected or passed.") var status: ApplicationStatus?
        @Option(name: .customLong("page-token")) var pageToken = ""

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let page = try await client.production.applications(status: status?.value ?? .unspecified, pageToken: pageToken)
                output.emit(["applications": page.applications.map(FirstDateJSON.application), "next_page_token": page.nextPageToken]) {
                    guard !page.applications.isEmpty else { return "no applications" }
                    return Output.table(["APPLICATION", "ACCOUNT", "STATUS", "NAME", "SUBMITTED"], page.applications.map {
                        [$0.id, $0.accountID, FirstDateJSON.status($0.status), $0.aboutYou?.legalName ?? "", iso($0.submittedAt)]
                    })
                }
            }
        }
    }

    struct Review: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hosts: move an application to reviewing, shortlisted, selected or passed.")
        @OptionGroup var options: GlobalOptions
        @Argument var applicationID: String
        @Argument(help: "reviewing, shortlisted, selected or passed.") var status: ApplicationStatus

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let application = try await client.production.setApplicationStatus(applicationID, to: status.value)
                output.emit(FirstDateJSON.application(application)) { FirstDateJSON.text(application) }
            }
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hosts: cast a selected applicant in an episode.")
        @OptionGroup var options: GlobalOptions
        @Argument var applicationID: String
        @Argument var episodeID: String

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let application = try await client.production.assignToEpisode(applicationID: applicationID, episodeID: episodeID)
                output.emit(FirstDateJSON.application(application)) { FirstDateJSON.text(application) }
            }
        }
    }

    struct Seasons: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the seasons.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let seasons = try await client.production.seasons()
                output.emit(["seasons": seasons.map(FirstDateJSON.season)]) {
                    Output.table(["SEASON", "NUMBER", "TITLE", "PUBLISHED"], seasons.map {
                        [$0.id, String($0.number), $0.title, String($0.publishedEpisodes)]
                    })
                }
            }
        }
    }

    struct CreateSeason: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create-season", abstract: "Hosts: start a season.")
        @OptionGroup var options: GlobalOptions
        @Argument var number: Int32
        @Option var title = ""

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let season = try await client.production.createSeason(number: number, title: title)
                output.emit(FirstDateJSON.season(season)) { "season \(season.number): \(season.id)" }
            }
        }
    }

    struct Episodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a season's episodes (viewers see only published ones).")
        @OptionGroup var options: GlobalOptions
        @Argument var seasonID: String

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let episodes = try await client.production.episodes(seasonID: seasonID)
                output.emit(["episodes": episodes.map(FirstDateJSON.episodeView)]) {
                    Output.table(["EPISODE", "NUMBER", "TITLE", "STATUS"], episodes.map(FirstDateJSON.episodeRow))
                }
            }
        }
    }

    struct CreateEpisode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create-episode", abstract: "Hosts: plan an episode in a season.")
        @OptionGroup var options: GlobalOptions
        @Argument var seasonID: String
        @Argument var number: Int32
        @Argument var title: String
        @Option var sponsor = ""

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let episode = try await client.production.createEpisode(seasonID: seasonID, number: number, title: title, sponsor: sponsor)
                output.emit(FirstDateJSON.episode(episode)) { FirstDateJSON.episodeText(episode) }
            }
        }
    }

    struct Episode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an episode (hosts: everything; viewers: the published membrane).")
        @OptionGroup var options: GlobalOptions
        @Argument var episodeID: String

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let view = try await client.production.episode(episodeID)
                output.emit(FirstDateJSON.episodeView(view)) { FirstDateJSON.episodeRow(view).joined(separator: "  ") }
            }
        }
    }

    struct Deal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hosts: move an episode's sponsor deal to identified, outreach, negotiation or confirmed.")
        @OptionGroup var options: GlobalOptions
        @Argument var episodeID: String
        @Argument var stage: PitchStage
        @Option var sponsor = ""
        @Option(help: "The deal's value (e.g. 1500.00), with --currency.") var value: Double?
        @Option(help: "ISO currency of --value.") var currency = "USD"

        func run() async throws {
            let dealValue = value.map { Production.Money(amountMinor: Int64(($0 * 100).rounded()), currency: currency) }
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let episode = try await client.production.advanceDeal(episodeID: episodeID, to: stage.value, sponsor: sponsor,
                                                                      dealValue: dealValue)
                output.emit(FirstDateJSON.episode(episode)) { FirstDateJSON.episodeText(episode) }
            }
        }
    }

    struct Advance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hosts: move an episode through planning, casting, scheduled, filmed, editing and published (consent gates filming).")
        @OptionGroup var options: GlobalOptions
        @Argument var episodeID: String
        @Argument var status: EpisodeStatus

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let episode = try await client.production.advanceProduction(episodeID: episodeID, to: status.value)
                output.emit(FirstDateJSON.episode(episode)) { FirstDateJSON.episodeText(episode) }
            }
        }
    }

    struct ProfitAndLoss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "pnl", abstract: "Hosts: profit and loss, of a season or an episode.")
        @OptionGroup var options: GlobalOptions
        @Option var season = ""
        @Option var episode = ""

        func run() async throws {
            try await options.withClient(app: FirstDateCommand.app) { client, output in
                let pnl = try await client.production.profitAndLoss(seasonID: season, episodeID: episode)
                output.emit(["entry_count": pnl.entryCount, "totals": pnl.totals.map {
                    ["currency": $0.currency, "income_minor": $0.incomeMinor, "expense_minor": $0.expenseMinor, "net_minor": $0.netMinor] as JSONObject
                }]) {
                    Output.table(["CURRENCY", "INCOME", "EXPENSES", "NET"], pnl.totals.map {
                        [$0.currency, FirstDateJSON.money($0.incomeMinor), FirstDateJSON.money($0.expenseMinor), FirstDateJSON.money($0.netMinor)]
                    }) + "\n\(pnl.entryCount) ledger entries"
                }
            }
        }
    }

    enum ApplicationStatus: String, ExpressibleByArgument, CaseIterable {
        case pending, reviewing, shortlisted, selected, passed
        var value: Production.ApplicationStatus {
            switch self {
            case .pending: .pending
            case .reviewing: .reviewing
            case .shortlisted: .shortlisted
            case .selected: .selected
            case .passed: .passed
            }
        }
    }

    enum PitchStage: String, ExpressibleByArgument, CaseIterable {
        case identified, outreach, negotiation, confirmed
        var value: Production.PitchStage {
            switch self {
            case .identified: .identified
            case .outreach: .outreach
            case .negotiation: .negotiation
            case .confirmed: .confirmed
            }
        }
    }

    enum EpisodeStatus: String, ExpressibleByArgument, CaseIterable {
        case planning, casting, scheduled, filmed, editing, published
        var value: Production.EpisodeStatus {
            switch self {
            case .planning: .planning
            case .casting: .casting
            case .scheduled: .scheduled
            case .filmed: .filmed
            case .editing: .editing
            case .published: .published
            }
        }
    }
}

enum FirstDateJSON {
    static func status(_ status: Production.ApplicationStatus) -> String {
        FirstDateCommand.ApplicationStatus.allCases.first { $0.value == status }?.rawValue ?? (status == .draft ? "draft" : "unspecified")
    }

    static func episodeStatus(_ status: Production.EpisodeStatus) -> String {
        FirstDateCommand.EpisodeStatus.allCases.first { $0.value == status }?.rawValue ?? "unspecified"
    }

    static func money(_ minor: Int64) -> String { String(format: "%.2f", Double(minor) / 100) }

    static func application(_ application: Production.Application) -> JSONObject {
        [
            "id": application.id, "account_id": application.accountID, "status": status(application.status),
            "legal_name": application.aboutYou?.legalName ?? "", "completed_steps": application.completedSteps,
            "episode_ids": application.episodeIDs, "submitted_at": isoJSON(application.submittedAt),
        ]
    }

    static func text(_ application: Production.Application) -> String {
        Output.fields([("application", application.id), ("status", status(application.status)),
                       ("steps done", application.completedSteps.joined(separator: ", ")),
                       ("submitted", iso(application.submittedAt)), ("episodes", application.episodeIDs.joined(separator: ", "))])
    }

    static func season(_ season: Production.Season) -> JSONObject {
        ["id": season.id, "number": Int(season.number), "title": season.title, "published_episodes": Int(season.publishedEpisodes)]
    }

    static func episode(_ episode: Production.Episode) -> JSONObject {
        ["id": episode.id, "season_id": episode.seasonID, "number": Int(episode.number), "title": episode.title,
         "status": episodeStatus(episode.status), "pitch_stage": Int(episode.pitchStage.rawValue), "sponsor": episode.sponsor,
         "cast_account_ids": episode.castAccountIDs, "published_at": isoJSON(episode.publishedAt)]
    }

    static func episodeText(_ episode: Production.Episode) -> String {
        Output.fields([("episode", episode.id), ("number", String(episode.number)), ("title", episode.title),
                       ("status", episodeStatus(episode.status)), ("sponsor", episode.sponsor),
                       ("cast", episode.castAccountIDs.joined(separator: ", "))])
    }

    static func episodeView(_ view: Production.EpisodeView) -> JSONObject {
        switch view.view {
        case .episode(let episode)?: return Self.episode(episode)
        case .published(let published)?:
            return ["id": published.id, "number": Int(published.number), "title": published.title, "status": "published",
                    "behind_the_glass": published.behindTheGlass?.text ?? "", "view_count": published.viewCount,
                    "published_at": isoJSON(published.publishedAt)]
        case nil: return [:]
        }
    }

    static func episodeRow(_ view: Production.EpisodeView) -> [String] {
        switch view.view {
        case .episode(let episode)?: [episode.id, String(episode.number), episode.title, episodeStatus(episode.status)]
        case .published(let published)?: [published.id, String(published.number), published.title, "published"]
        case nil: ["", "", "", ""]
        }
    }
}
