import ArgumentParser
import Contracts
import GatewayClient

/// `rendezvous profile show|set`.
struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "profile", abstract: "Show or change a profile.",
                                                    subcommands: [Show.self, Set.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show your profile, or another member's (by id or --username).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Another member's account id.") var accountID: String?
        @Option(help: "Another member's username.") var username: String?

        func run() async throws {
            try await options.withClient { client, output in
                let profile = if let username {
                    try await client.profiles.getProfile(username: username)
                } else if let accountID {
                    try await client.profiles.getProfile(accountID: accountID)
                } else {
                    try await client.profiles.getMyProfile()
                }
                output.emit(ProfileJSON.make(profile)) { ProfileJSON.text(profile) }
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change fields of your profile (only those given).")
        @OptionGroup var options: GlobalOptions
        @Option var username: String?
        @Option(name: .customLong("display-name")) var displayName: String?
        @Option var bio: String?
        @Option var title: String?
        @Option var neighborhood: String?
        @Option(help: "Comma-separated tags.") var tags: String?
        @Option(help: "Comma-separated interests.") var interests: String?
        @Option(help: "true or false: shown in feeds.") var active: Bool?

        func run() async throws {
            var fields = Profiles.ProfileFields()
            var mask: [String] = []
            func list(_ text: String) -> [String] {
                text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            if let username { fields.username = username; mask.append("username") }
            if let displayName { fields.displayName = displayName; mask.append("display_name") }
            if let bio { fields.bio = bio; mask.append("bio") }
            if let title { fields.title = title; mask.append("title") }
            if let neighborhood { fields.neighborhood = neighborhood; mask.append("neighborhood") }
            if let tags { fields.tags = list(tags); mask.append("tags") }
            if let interests { fields.interests = list(interests); mask.append("interests") }
            if let active { fields.active = active; mask.append("active") }
            guard !mask.isEmpty else { throw ValidationError("give at least one field to change, e.g. --bio") }
            try await options.withClient { client, output in
                let profile = try await client.profiles.updateProfile(fields, mask: mask)
                output.emit(ProfileJSON.make(profile)) { ProfileJSON.text(profile) }
            }
        }
    }
}

enum ProfileJSON {
    static func make(_ profile: Profiles.Profile) -> JSONObject {
        [
            "account_id": profile.accountID, "app": profile.app, "username": profile.username,
            "display_name": profile.displayName, "public_name": profile.publicName, "age": Int(profile.age), "bio": profile.bio,
            "title": profile.title, "tags": profile.tags, "interests": profile.interests, "neighborhood": profile.neighborhood,
            "active": profile.active, "verified": profile.verified, "photo_ids": profile.photoIDs, "role": profile.role,
            "updated_at": isoJSON(profile.updatedAt),
        ]
    }

    static func text(_ profile: Profiles.Profile) -> String {
        Output.fields([
            ("account", profile.accountID), ("name", profile.publicName), ("username", profile.username),
            ("age", profile.age > 0 ? String(profile.age) : ""), ("title", profile.title), ("bio", profile.bio),
            ("tags", profile.tags.joined(separator: ", ")), ("neighborhood", profile.neighborhood),
            ("photos", String(profile.photoIDs.count)), ("active", String(profile.active)), ("verified", String(profile.verified)),
        ])
    }
}
