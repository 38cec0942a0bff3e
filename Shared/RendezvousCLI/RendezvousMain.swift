import ArgumentParser

/// `rendezvous`: the Rendezvous apps from a terminal, on the gateway client. Readable output by
/// default, `--json` for scripts; errors go to stderr as the gRPC status and its reason, and the
/// exit status is non-zero.
@main
struct Rendezvous: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rendezvous",
        abstract: "Use the Rendezvous apps (ÉLITE, FirstDate, Swivo, The Unseen, Momento) from a terminal.",
        discussion: """
        Every command talks to one address, the gRPC edge (--address, or RENDEZVOUS_ADDRESS). The signed-in \
        session is kept per app in ~/.config/rendezvous/<app>.json (--profile NAME keeps another user's \
        session beside it). Shell completion: rendezvous --generate-completion-script bash|zsh|fish.
        """,
        subcommands: [
            SignInCommand.self, SignOutCommand.self, WhoAmICommand.self, ProfileCommand.self,
            FeedCommand.self, SwipeCommand.self, MatchesCommand.self, ChatCommand.self, WatchCommand.self,
            SwivoCommand.self, PhotoCommand.self, MomentoCommand.self, FirstDateCommand.self, ExportCommand.self, HealthCommand.self,
        ])

    /// Accepts the global options before the subcommand too (`rendezvous --json whoami`):
    /// argument-parser reads them only after it, where they are moved.
    static func main() async {
        await main(GlobalOptions.movingLeadingOptions(Array(CommandLine.arguments.dropFirst())))
    }
}
