import Foundation
import TestSupport
import Testing

/// The CLI through whole journeys behind the edge: ÉLITE (profile, feed, swipe to a match, chat,
/// realtime), Swivo (a group session to its match) and FirstDate (an application cast by a host).
@Suite(.serialized) struct CLIJourneyTests {
    static let password = "correct horse battery staple"

    /// Runs `command` until it exits 0, at most 15 s (services learn of each other by events).
    static func eventually(_ cli: CLIRunner, _ command: [String]) async throws -> CLIRunner.Result {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            let result = try await cli.run(command)
            if result.status == 0 || ContinuousClock.now > deadline { return result }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A signed-up ÉLITE member, admitted (`TestAdmission`, then signed in again for a token that
    /// says so), with an active profile, through the CLI.
    static func member(_ port: Int, name: String) async throws -> (CLIRunner, String) {
        let cli = CLIRunner.make(port: port, app: "elite")
        let email = "\(TestDatabase.uniqueName("cli"))@example.com"
        let signedUp = try await cli.run(["sign-in", "email", email, "--sign-up", "--password", password, "--json"])
        try #require(signedUp.status == 0, "\(signedUp.stderr)")
        try await TestAdmission.admit(try #require(try signedUp.json()["id"] as? String))
        let signedIn = try await cli.run(["sign-in", "email", email, "--password", password])
        try #require(signedIn.status == 0, "\(signedIn.stderr)")
        let profile = try await cli.run(["profile", "set", "--display-name", name, "--bio", "hello", "--active", "true", "--json"])
        try #require(profile.status == 0, "\(profile.stderr)")
        #expect(try profile.json()["display_name"] as? String == name)
        return (cli, try #require(try signedUp.json()["id"] as? String))
    }

    @Test func elite_feedSwipeMatchChatAndWatch() async throws {
        let stack = try await DiscoveryStack.start(withEdge: true, messagingInstances: 1)
        do {
            let port = try #require(stack.edge).port
            let (ana, anaID) = try await Self.member(port, name: "Ana")
            let (ben, benID) = try await Self.member(port, name: "Ben")

            // `watch --count 0` prints where the stream stands: a script's resume point.
            let ready = try await ana.run(["watch", "--count", "0", "--json"])
            #expect(ready.status == 0, "\(ready.stderr)")
            let cursor = try #require(try ready.json()["after_cursor"] as? Int)

            let mine = try await ana.run(["profile", "show", "--json"])
            #expect(try mine.json()["account_id"] as? String == anaID)
            let his = try await Self.eventually(ana, ["profile", "show", benID])
            #expect(his.stdout.contains("Ben") && his.stdout.contains("hello"), "\(his.stdout)\(his.stderr)")

            let feed = try await Self.eventually(ana, ["feed", "--json"])
            #expect(feed.status == 0, "\(feed.stderr)")
            #expect(try feed.json()["cards"] is [Any])

            let liked = try await Self.eventually(ana, ["swipe", "like", benID, "--json"])
            #expect(liked.status == 0, "\(liked.stderr)")
            #expect(try liked.json()["match"] == nil)
            let matched = try await ben.run(["swipe", "like", anaID])
            #expect(matched.status == 0, "\(matched.stderr)")
            let matchID = try #require(matched.stdout.firstMatch(of: /It's a match! .* — match (\S+)/)?.1).description

            let matches = try await ana.run(["matches", "--json"])
            #expect((try matches.json()["matches"] as? [[String: Any]])?.map { $0["match_id"] as? String } == [matchID])

            // The conversation opens once messaging hears of the match.
            let sent = try await Self.eventually(ana, ["chat", "send", matchID, "Dinner on Friday?", "--json"])
            #expect(sent.status == 0, "\(sent.stderr)")
            let messageID = try #require(try sent.json()["message_id"] as? String)
            let reply = try await ben.run(["chat", "send", matchID, "Yes!"])
            #expect(reply.status == 0 && reply.stdout.hasPrefix("sent "), "\(reply.stderr)")

            let list = try await ben.run(["chat", "list", "--json"])
            let conversation = try #require((try list.json()["conversations"] as? [[String: Any]])?.first)
            #expect(conversation["conversation_id"] as? String == matchID)
            #expect(conversation["other_account_id"] as? String == anaID)
            #expect(conversation["unread_count"] as? Int == 1)

            let shown = try await ben.run(["chat", "show", matchID])
            #expect(shown.stdout.contains("them: Dinner on Friday?") && shown.stdout.contains("me: Yes!"), "\(shown.stdout)")
            let read = try await ben.run(["chat", "read", matchID, "--json"])
            #expect(try read.json()["unread_count"] as? Int == 0)

            // Everything since the cursor, replayed as JSON lines (with the stream's ready): the
            // match first, then the chat.
            let watched = try await ana.run(["watch", "--after", String(cursor), "--count", "2", "--json"], timeout: .seconds(20))
            #expect(watched.status == 0, "\(watched.stderr)")
            let events = watched.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(events.map { $0["type"] as? String }.filter { $0 != "ready" } == ["match", "message"])
            #expect((events.last?["message"] as? [String: Any])?["message_id"] as? String == messageID)
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    @Test func swivo_createJoinAndSwipeToTheMatch() async throws {
        let stack = try await DiscoveryStack.start(withEdge: true)
        do {
            let port = try #require(stack.edge).port
            let (host, guest) = (CLIRunner.make(port: port, app: "swivo"), CLIRunner.make(port: port, app: "swivo"))
            #expect(try await host.run(["sign-in", "anonymous"]).status == 0)
            #expect(try await guest.run(["sign-in", "anonymous"]).status == 0)

            let categories = try await host.run(["swivo", "categories", "--json"])
            let category = try #require((try categories.json()["categories"] as? [[String: Any]])?.first?["category_id"] as? String)
            let created = try await host.run(["swivo", "create", category, "--quorum", "2", "--json"])
            #expect(created.status == 0, "\(created.stderr)")
            let session = try created.json()
            let sessionID = try #require(session["session_id"] as? String)
            let code = try #require(session["invite_code"] as? String)

            let joined = try await guest.run(["swivo", "join", code, "--json"])
            #expect(joined.status == 0, "\(joined.stderr)")
            #expect(try joined.json()["session_id"] as? String == sessionID)
            #expect(try joined.json()["read_only"] as? Bool == false)

            let deck = try await guest.run(["swivo", "deck", sessionID, "--json"])
            let option = try #require((try deck.json()["options"] as? [[String: Any]])?.first?["option_id"] as? String)
            let first = try await host.run(["swivo", "swipe", sessionID, option, "--json"])
            #expect(try first.json()["match_found"] as? Bool == false)
            let second = try await guest.run(["swivo", "swipe", sessionID, option])
            #expect(second.status == 0 && second.stdout.hasPrefix("It's a match"), "\(second.stdout)\(second.stderr)")
            let shown = try await host.run(["swivo", "show", sessionID, "--json"])
            #expect(try shown.json()["status"] as? String == "matched")

            let unknown = try await guest.run(["swivo", "join", "NOSUCH"])
            #expect(unknown.status == 1 && unknown.stderr.hasPrefix("error: "), "\(unknown.stderr)")
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    @Test func firstDate_applyThenAHostCastsTheApplicant() async throws {
        let stack = try await ProductionStack.start(withEdge: true)
        do {
            let port = try #require(stack.edge).port
            func member() async throws -> (CLIRunner, id: String, email: String) {
                let cli = CLIRunner.make(port: port, app: "firstdate")
                let email = "\(TestDatabase.uniqueName("cli"))@example.com"
                let result = try await cli.run(["sign-in", "email", email, "--sign-up", "--password", Self.password, "--json"])
                try #require(result.status == 0, "\(result.stderr)")
                return (cli, try #require(try result.json()["id"] as? String), email)
            }
            let (applicant, _, _) = try await member()
            let (host, hostID, hostEmail) = try await member()

            let applied = try await applicant.run([
                "firstdate", "apply", "--legal-name", "Camila Ortiz", "--age", "29", "--bio", "Chef", "--neighborhood", "Little Havana",
                "--why-me", "I cook on first dates.", "--answer", "ideal_date=cafecito", "--photo-ids", "p1", "--video-selfie", "v1",
                "--consent", "--submit", "--json",
            ])
            #expect(applied.status == 0, "\(applied.stderr)")
            let applicationID = try #require(try applied.json()["id"] as? String)
            #expect(try applied.json()["status"] as? String == "pending")

            // Not a host yet: refused with the status on stderr.
            let refused = try await host.run(["firstdate", "applications"])
            #expect(refused.status == 1 && refused.stderr.hasPrefix("error: PERMISSION_DENIED"), "\(refused.stderr)")

            // An operator makes them host; signing in again gives a token that says so.
            let grant = try await Subprocess.run(
                try RepositoryPaths.builtExecutable("identity"),
                ["grant-role", "--app", "firstdate", "--account-id", hostID, "--role", "host"],
                environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
            try #require(grant.exitCode == 0, "\(grant.output)")
            #expect(try await host.run(["sign-in", "email", hostEmail, "--password", Self.password]).status == 0)

            let pending = try await host.run(["firstdate", "applications", "--status", "pending", "--json"])
            #expect(pending.status == 0, "\(pending.stderr)")
            #expect((try pending.json()["applications"] as? [[String: Any]])?.contains { $0["id"] as? String == applicationID } == true)

            var seasonID: String?
            for _ in 0..<20 where seasonID == nil {  // numbers are per app; other tests hold some
                let season = try await host.run(["firstdate", "create-season", String(Int.random(in: 1...999)), "--title", "Miami Nights", "--json"])
                if season.status == 0 { seasonID = try season.json()["id"] as? String } else { #expect(season.stderr.contains("SEASON_EXISTS")) }
            }
            let season = try #require(seasonID)
            let created = try await host.run(["firstdate", "create-episode", season, "1", "Omakase for two", "--sponsor", "Hiden", "--json"])
            #expect(created.status == 0, "\(created.stderr)")
            let episodeID = try #require(try created.json()["id"] as? String)

            let skipped = try await host.run(["firstdate", "deal", episodeID, "confirmed"])
            #expect(skipped.status == 1 && skipped.stderr.contains("OUT_OF_ORDER"), "\(skipped.stderr)")
            for stage in ["outreach", "negotiation"] {
                #expect(try await host.run(["firstdate", "deal", episodeID, stage]).status == 0)
            }
            let confirmed = try await host.run(["firstdate", "deal", episodeID, "confirmed", "--value", "1500", "--json"])
            #expect(confirmed.status == 0, "\(confirmed.stderr)")
            let casting = try await host.run(["firstdate", "advance", episodeID, "casting"])
            #expect(casting.status == 0, "\(casting.stderr)")
            for status in ["reviewing", "shortlisted", "selected"] {
                let reviewed = try await host.run(["firstdate", "review", applicationID, status, "--json"])
                #expect(try reviewed.json()["status"] as? String == status, "\(reviewed.stderr)")
            }
            let assigned = try await host.run(["firstdate", "assign", applicationID, episodeID, "--json"])
            #expect(assigned.status == 0, "\(assigned.stderr)")
            // Filming waits for the cast's consent.
            let gated = try await host.run(["firstdate", "advance", episodeID, "scheduled"])
            #expect(gated.status == 1 && gated.stderr.contains("CONSENT_REQUIRED"), "\(gated.stderr)")

            let episodes = try await host.run(["firstdate", "episodes", season, "--json"])
            let listed = try #require((try episodes.json()["episodes"] as? [[String: Any]])?.first)
            #expect(listed["id"] as? String == episodeID && listed["status"] as? String == "casting")
            let mine = try await applicant.run(["firstdate", "application", "--json"])
            #expect(try mine.json()["status"] as? String == "selected")
            #expect(try mine.json()["episode_ids"] as? [String] == [episodeID])
            let pnl = try await host.run(["firstdate", "pnl", "--season", season, "--json"])
            #expect(pnl.status == 0, "\(pnl.stderr)")
            // The confirmed deal's value is the season's income so far.
            let totals = try #require(try pnl.json()["totals"] as? [[String: Any]])
            #expect(totals.map { [$0["currency"] as? String, ($0["income_minor"] as? Int).map(String.init)] } == [["USD", "150000"]],
                    "\(pnl.stdout)")
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    @Test func export_writesYourCopyFromEveryService_toAFileOnlyYouCanRead() async throws {
        await MediaBackendLock.shared.acquire("local")  // the journey stack's media shares the local store
        let stack: JourneyStack
        do {
            stack = try await JourneyStack.start(instances: 1, push: false)
        } catch {
            await MediaBackendLock.shared.release()
            throw error
        }
        do {
            let cli = CLIRunner.make(port: stack.edge.port, app: "swivo")
            let signIn = try await cli.run(["sign-in", "anonymous", "--json"])
            #expect(signIn.status == 0, "\(signIn.stderr)")
            let accountID = try #require(try signIn.json()["id"] as? String)
            let categories = try await cli.run(["swivo", "categories", "--json"])
            let category = try #require((try categories.json()["categories"] as? [[String: Any]])?.first?["category_id"] as? String)
            let created = try await cli.run(["swivo", "create", category, "--quorum", "2", "--json"])
            let sessionID = try #require(try created.json()["session_id"] as? String)

            let file = NSTemporaryDirectory() + "rv-cli-export-\(UUID().uuidString).json"
            defer { try? FileManager.default.removeItem(atPath: file) }
            let exported = try await cli.run(["export", "--out", file, "--json"])
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(try exported.json()["services"] as? Int == 5)
            let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(permissions == 0o600, "personal data: readable by its owner only, not \(String(describing: permissions))")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            #expect(document["account_id"] as? String == accountID && document["app"] as? String == "swivo")
            let services = try #require(document["services"] as? [String: [String: Any]])
            #expect(Set(services.keys) == ["identity", "discovery", "messaging", "production", "media"])
            let sessions = (services["discovery"]?["sections"] as? [String: [String: Any]])?["group_sessions"]?["records"]
            #expect((sessions as? [[String: Any]])?.map { $0["id"] as? String } == [sessionID], "her Swivo session: \(String(describing: sessions))")

            // Signed out, there is nothing to export with.
            #expect(try await cli.run(["sign-out"]).status == 0)
            let refused = try await cli.run(["export"])
            #expect(refused.status != 0 && refused.stderr.contains("UNAUTHENTICATED") && refused.stderr.contains("SIGNED_OUT"),
                    "\(refused.stdout)\(refused.stderr)")
        } catch {
            print(stack.logs)
            await stack.stop()
            await MediaBackendLock.shared.release()
            throw error
        }
        await stack.stop()
        await MediaBackendLock.shared.release()
    }
}
