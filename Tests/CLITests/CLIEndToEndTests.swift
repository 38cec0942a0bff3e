import Foundation
import TestSupport
import Testing

/// The `rendezvous` executable against the real services (identity and media behind the nginx
/// edge, on the local Postgres), as a person at a terminal or a script would use it.
@Suite(.serialized) struct CLIEndToEndTests {
    @Test func momento_signInWhoamiCreateWithQRUploadGallery_throughTheEdge() async throws {
        let stack = try await MediaStack.start(withEdge: true)
        do {
            let edge = try #require(stack.edge)
            let cli = CLIRunner.make(port: edge.port, app: "momento")

            let signIn = try await cli.run(["sign-in", "anonymous", "--json"])
            #expect(signIn.status == 0, "\(signIn.stderr)")
            let accountID = try #require(try signIn.json()["id"] as? String)

            let whoami = try await cli.run(["whoami", "--json"])
            #expect(whoami.status == 0, "\(whoami.stderr)")
            let account = try whoami.json()
            #expect(account["id"] as? String == accountID)
            #expect(account["app"] as? String == "momento")
            #expect(account["anonymous"] as? Bool == true)

            // People get the event, its join code and a QR code of the join link.
            let created = try await cli.run(["momento", "create", "--title", "Rooftop party", "--release-in", "2h"])
            #expect(created.status == 0, "\(created.stderr)")
            let joinCode = try #require(created.stdout.firstMatch(of: /join code\s+([2-9A-HJ-NP-Z]{6})/)?.1).description
            let link = try #require(created.stdout.firstMatch(of: /link\s+(momento:\/\/join\/\S+)/)?.1).description
            #expect(link.hasPrefix("momento://join/\(joinCode)?eventId="))
            let drawing = created.stdout.split(separator: "\n").filter { $0.contains("█") || $0.contains("▀") || $0.contains("▄") }
            #expect(try await QRDecoding.decode(QRDecoding.rows(terminal: drawing.joined(separator: "\n"))) == link)
            let eventID = String(link.split(separator: "=").last ?? "")

            // Scripts get the same as JSON, the QR drawing included.
            let shown = try await cli.run(["momento", "show", eventID, "--json"])
            #expect(shown.status == 0, "\(shown.stderr)")
            let event = try shown.json()
            #expect(event["join_code"] as? String == joinCode)
            #expect(event["join_link"] as? String == link)
            #expect(try await QRDecoding.decode(QRDecoding.rows(terminal: try #require(event["qr"] as? String))) == link)

            let photo = NSTemporaryDirectory() + "rv-cli-\(UUID().uuidString).jpg"
            defer { try? FileManager.default.removeItem(atPath: photo) }
            try Data(try JPEGFixture.make(width: 640, height: 480)).write(to: URL(fileURLWithPath: photo))
            let upload = try await cli.run(["momento", "upload", eventID, photo, "--json"])
            #expect(upload.status == 0, "\(upload.stderr)")
            let added = try #require((try upload.json()["photos"] as? [[String: Any]])?.first)
            let photoID = try #require(added["photo_id"] as? String)
            #expect(added["account_id"] as? String == accountID)
            #expect(added["content_type"] as? String == "image/jpeg")
            #expect((added["width"] as? Int, added["height"] as? Int) == (640, 480))
            #expect(upload.stderr.isEmpty, "no progress bar when the output is not a terminal")

            let gallery = try await cli.run(["momento", "gallery", eventID, "--json"])
            #expect(gallery.status == 0, "\(gallery.stderr)")
            let page = try gallery.json()
            #expect(page["revealed"] as? Bool == false)
            #expect((page["photos"] as? [[String: Any]])?.map { $0["photo_id"] as? String } == [photoID])
            let galleryText = try await cli.run(["momento", "gallery", eventID])
            #expect(galleryText.stdout.contains("not revealed yet") && galleryText.stdout.contains(photoID))

            // At a terminal the upload draws its progress bar.
            let atTerminal = try await cli.runInTerminal(["momento", "upload", eventID, photo])
            #expect(atTerminal.status == 0, "\(atTerminal.stdout)")
            let photoName = (photo as NSString).lastPathComponent
            #expect(atTerminal.stdout.contains("\(photoName) [██████████████████████████████] 100%"), "\(atTerminal.stdout)")
            #expect(atTerminal.stdout.contains("added \(photo) as photo "))

            // A profile photo, for an ÉLITE member on the same edge.
            let member = CLIRunner.make(port: edge.port, app: "elite")
            let email = "\(TestDatabase.uniqueName("cli"))@example.com"
            let signedUp = try await member.run(["sign-in", "email", email, "--sign-up", "--password", "correct horse battery staple",
                                                 "--json"])
            #expect(signedUp.status == 0)
            // Admitted (as the committee would), then signed in again for a token that says so.
            try await TestAdmission.admit(try #require(try signedUp.json()["id"] as? String))
            #expect(try await member.run(["sign-in", "email", email, "--password", "correct horse battery staple"]).status == 0)
            let profilePhoto = try await member.run(["photo", "upload", photo, "--json"])
            #expect(profilePhoto.status == 0, "\(profilePhoto.stderr)")
            let blobID = try #require(try profilePhoto.json()["blob_id"] as? String)
            #expect(try profilePhoto.json()["profile_photos"] as? [String] == [blobID])
            let photos = try await member.run(["photo", "list", "--json"])
            let listed = try #require((try photos.json()["photos"] as? [[String: Any]])?.first)
            #expect(listed["blob_id"] as? String == blobID)
            #expect((listed["url"] as? String)?.contains("/media/v1/blobs/") == true)
            let notAPhoto = try await member.run(["photo", "upload", "/etc/hostname"])
            #expect(notAPhoto.status == 1 && notAPhoto.stderr.contains("is not a JPEG, PNG or HEIC photo"))

            // A code no event has: the status and reason on stderr, nothing on stdout, exit 1.
            let unknown = try await cli.run(["momento", "join", "ZZZZZZ"])
            #expect(unknown.status == 1)
            #expect(unknown.stdout.isEmpty)
            #expect(unknown.stderr.hasPrefix("error: NOT_FOUND JOIN_CODE_NOT_FOUND"), "\(unknown.stderr)")
            let malformed = try await cli.run(["momento", "join", "bad!code", "--json"])
            #expect(malformed.status == 1)
            let failure = try #require(try JSONSerialization.jsonObject(with: Data(malformed.stderr.utf8)) as? [String: Any])
            let error = try #require(failure["error"] as? [String: Any])
            #expect(error["code"] as? String == "INVALID_ARGUMENT")
            #expect(error["reason"] as? String == "INVALID_JOIN_CODE")

            // Signed out, the next call says so.
            #expect(try await cli.run(["sign-out"]).status == 0)
            let gone = try await cli.run(["whoami"])
            #expect(gone.status == 1)
            #expect(gone.stderr.contains("UNAUTHENTICATED SIGNED_OUT"), "\(gone.stderr)")
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// Phone sign-in as the help tells it: ask for a code, read it from identity's development
    /// log, sign in with it; a wrong code is refused with its reason.
    @Test func phoneSignIn_withTheCodeFromIdentitysLog_andAWrongCode() async throws {
        let identity = try await DiscoveryStack.startIdentity(credentials: "cli=cli-tests-secret-0123456789abcdef",
                                                              environment: ["RV_LOG_LEVEL": "notice", "RV_LOG_FORMAT": "json"])
        do {
            let cli = CLIRunner.make(port: identity.port, app: "elite")
            let phone = "+1555" + String(format: "%011llu", UInt64.random(in: 0..<100_000_000_000))
            let started = try await cli.run(["sign-in", "phone", phone])
            #expect(started.status == 0, "\(started.stderr)")
            #expect(started.stdout.contains("--code"))
            let code = try #require(identity.phoneCode(for: phone))
            let wrong = code == "000000" ? "111111" : "000000"

            let refused = try await cli.run(["sign-in", "phone", phone, "--code", wrong])
            #expect(refused.status == 1)
            #expect(refused.stderr.hasPrefix("error: UNAUTHENTICATED INVALID_CODE"), "\(refused.stderr)")
            #expect(refused.stderr.contains("attempts_remaining=4"), "\(refused.stderr)")

            let signedIn = try await cli.run(["sign-in", "phone", phone, "--code", code, "--json"])
            #expect(signedIn.status == 0, "\(signedIn.stderr)")
            let whoami = try await cli.run(["whoami", "--json"])
            #expect(try whoami.json()["phone"] as? String == phone)
            #expect(try whoami.json()["id"] as? String == (try signedIn.json()["id"] as? String))
        } catch {
            print("identity log:\n\(identity.log)")
            await identity.stop()
            throw error
        }
        await identity.stop()
    }

    /// What the containers' health checks run: exit 0 when SERVING, 1 otherwise, quickly.
    @Test func health_servingIsZero_unknownServiceAndDeadPortAreOne() async throws {
        let identity = try await DiscoveryStack.startIdentity(credentials: "cli=cli-tests-secret-0123456789abcdef")
        do {
            let cli = CLIRunner(globalArguments: [])
            let serving = try await cli.run(["health", "--address", "127.0.0.1:\(identity.port)"])
            #expect(serving.status == 0, "\(serving.stderr)")
            #expect(serving.stdout == "SERVING\n")

            // Global options may come before the subcommand too.
            let leading = try await cli.run(["--json", "--address", "127.0.0.1:\(identity.port)", "health"])
            #expect(leading.status == 0, "\(leading.stderr)")
            #expect(try leading.json()["status"] as? String == "SERVING")

            let unknown = try await cli.run(["health", "--address", "127.0.0.1:\(identity.port)", "--service", "no.such.Service", "--json"])
            #expect(unknown.status == 1)

            let deadPort = try LocalPort.free()
            let dead = try await cli.run(["health", "--address", "127.0.0.1:\(deadPort)"])
            #expect(dead.status == 1)
            #expect(dead.stderr.hasPrefix("error: UNAVAILABLE"), "\(dead.stderr)")
            #expect(dead.elapsed < .seconds(3))
        } catch {
            await identity.stop()
            throw error
        }
        await identity.stop()
    }

    /// Sessions live in ~/.config/rendezvous/<app>[-<profile>].json, one user per profile, owner-only.
    @Test func profiles_keepSeveralUsersApart() async throws {
        let identity = try await DiscoveryStack.startIdentity(credentials: "cli=cli-tests-secret-0123456789abcdef")
        let config = NSTemporaryDirectory() + "rv-cli-config-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: config) }
        do {
            let cli = CLIRunner(globalArguments: ["--address", "127.0.0.1:\(identity.port)", "--app", "momento"])
            let environment = ["XDG_CONFIG_HOME": config]
            let alice = try await cli.run(["sign-in", "anonymous", "--profile", "alice", "--json"], environment: environment)
            let bob = try await cli.run(["sign-in", "anonymous", "--profile", "bob", "--json"], environment: environment)
            #expect(alice.status == 0 && bob.status == 0, "\(alice.stderr)\(bob.stderr)")
            let file = "\(config)/rendezvous/momento-alice.json"
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
            let whoAlice = try await cli.run(["whoami", "--profile", "alice", "--json"], environment: environment)
            let whoBob = try await cli.run(["whoami", "--profile", "bob", "--json"], environment: environment)
            #expect(try whoAlice.json()["id"] as? String == (try alice.json()["id"] as? String))
            #expect(try whoBob.json()["id"] as? String == (try bob.json()["id"] as? String))
            let nobody = try await cli.run(["whoami"], environment: environment)
            #expect(nobody.status == 1 && nobody.stderr.contains("SIGNED_OUT"), "\(nobody.stderr)")
        } catch {
            await identity.stop()
            throw error
        }
        await identity.stop()
    }

    /// Processes of one user started at once, each finding the access token expired: one refresh
    /// rotates the single-use refresh token and the others use its result, so nobody is signed out
    /// (two refreshes with one token would revoke the session: REFRESH_TOKEN_REUSED).
    @Test func concurrentCommands_withAnExpiredAccessToken_refreshOnce() async throws {
        let identity = try await DiscoveryStack.startIdentity(credentials: "cli=cli-tests-secret-0123456789abcdef")
        do {
            let cli = CLIRunner.make(port: identity.port, app: "momento")
            let signedIn = try await cli.run(["sign-in", "anonymous", "--json"])
            let accountID = try #require(try signedIn.json()["id"] as? String)
            let file = try #require(cli.globalArguments.last)
            for round in 0..<2 {
                // The stored access token says it expired a minute ago.
                var contents = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
                var session = try #require(contents["session"] as? [String: Any])
                session["accessTokenExpiresAt"] = Date().timeIntervalSince1970 - 60
                contents["session"] = session
                try JSONSerialization.data(withJSONObject: contents).write(to: URL(fileURLWithPath: file))

                let results = try await withThrowingTaskGroup(of: CLIRunner.Result.self) { group in
                    for _ in 0..<4 { group.addTask { try await cli.run(["whoami", "--json"]) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for result in results {
                    #expect(result.status == 0, "round \(round): \(result.stderr)")
                    if result.status == 0 { #expect(try result.json()["id"] as? String == accountID) }
                }
            }
            #expect(try await cli.run(["whoami"]).status == 0)
        } catch {
            await identity.stop()
            throw error
        }
        await identity.stop()
    }

    @Test func completionScript_andUsageErrors() async throws {
        let cli = CLIRunner(globalArguments: [])
        let bash = try await cli.run(["--generate-completion-script", "bash"])
        #expect(bash.status == 0)
        #expect(bash.stdout.contains("_rendezvous") && bash.stdout.contains("momento"))
        let badAddress = try await cli.run(["whoami", "--address", "nowhere"])
        #expect(badAddress.status != 0)
        #expect(badAddress.stderr.contains("host:port"))
    }
}
