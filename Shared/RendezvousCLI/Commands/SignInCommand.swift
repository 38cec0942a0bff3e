import ArgumentParser
import Contracts
import Foundation
import GatewayClient

/// `rendezvous sign-in …`: starts a session in the app and keeps it in the session file.
struct SignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in", abstract: "Sign in (the session is kept for the next commands).",
        subcommands: [Anonymous.self, Email.self, Phone.self, Apple.self, Google.self])

    struct Anonymous: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an anonymous device account and sign in to it.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withClient { client, output in
                let account = try await client.identity.signInAnonymously()
                output.emit(AccountJSON.make(account)) { "signed in to \(account.app) as \(account.id) (anonymous)" }
            }
        }
    }

    struct Email: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign in (or --sign-up) with an email and password.",
            discussion: """
            Without --password the password comes from RENDEZVOUS_PASSWORD, or is asked for (not echoed) at a \
            terminal, or is the first line of standard input.
            """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The email address.") var email: String
        @Option(help: "The password (prefer RENDEZVOUS_PASSWORD or standard input: arguments show in ps).") var password: String?
        @Flag(name: .customLong("sign-up"), help: "Create the account first.") var signUp = false
        @Option(help: "A member's referral code (ÉLITE), redeemed when --sign-up creates the account.") var referral = ""

        func run() async throws {
            guard let secret = password ?? options.environment["RENDEZVOUS_PASSWORD"] ?? Self.readPassword(), !secret.isEmpty
            else { throw ValidationError("no password: give --password, RENDEZVOUS_PASSWORD or a line on stdin") }
            try await options.withClient { client, output in
                let account = signUp
                    ? try await client.identity.signUpWithEmail(email, password: secret, referralCode: referral)
                    : try await client.identity.signInWithEmail(email, password: secret)
                output.emit(AccountJSON.make(account)) { "signed in to \(account.app) as \(account.id) (\(account.email))" }
            }
        }

        /// Asks at the terminal with echo off (getpass), or reads a line from a pipe.
        static func readPassword() -> String? {
            guard isatty(0) == 1 else { return readLine(strippingNewline: true) }
            guard let typed = getpass("password: ") else { return nil }
            return String(cString: typed)
        }
    }

    struct Phone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign in with a phone number: first without --code (a code is sent), then with it.",
            discussion: """
            In development no SMS is sent: identity logs the code instead, as a notice line \
            "phone one-time code (development sender: no SMS was sent)" with the phone and the code in its \
            metadata (make run shows identity's log in its terminal; with RV_LOG_FORMAT=json they are the \
            "phone" and "code" fields of "metadata").
            """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The phone number in E.164 form, e.g. +14155550123.") var phone: String
        @Option(help: "The 6-digit code that was sent.") var code: String?
        @Option(help: "A member's referral code (ÉLITE), redeemed when this sign-in creates the account.") var referral = ""

        func run() async throws {
            try await options.withClient { client, output in
                if let code {
                    let account = try await client.identity.verifyPhoneCode(code, phone: phone, referralCode: referral)
                    output.emit(AccountJSON.make(account)) { "signed in to \(account.app) as \(account.id) (\(account.phone))" }
                } else {
                    let sent = try await client.identity.startPhoneSignIn(phone)
                    let object: JSONObject = ["phone": sent.phone, "expires_at": isoJSON(sent.expiresAt),
                                              "resend_after_seconds": Int(sent.resendAfterSeconds)]
                    output.emit(object) {
                        """
                        a code was sent to \(sent.phone) (valid until \(iso(sent.expiresAt))); sign in with
                          rendezvous sign-in phone \(sent.phone) --code CODE
                        (in development the code is in identity's log, see --help)
                        """
                    }
                }
            }
        }
    }

    struct Apple: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign in with an Apple ID token.")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var token: ProviderToken

        func run() async throws { try await token.signIn(.apple, options: options) }
    }

    struct Google: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign in with a Google ID token.")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var token: ProviderToken

        func run() async throws { try await token.signIn(.google, options: options) }
    }

    struct ProviderToken: ParsableArguments {
        @Option(name: .customLong("id-token"), help: "The ID token the provider issued.") var idToken: String
        @Option(help: "The raw nonce the token's nonce claim was made from.") var nonce: String
        @Option(help: "A member's referral code (ÉLITE).") var referral = ""

        func signIn(_ provider: Identity.IdentityProvider, options: GlobalOptions) async throws {
            try await options.withClient { client, output in
                let account = try await client.identity.signInWithProvider(provider, idToken: idToken, rawNonce: nonce,
                                                                           referralCode: referral)
                output.emit(AccountJSON.make(account)) { "signed in to \(account.app) as \(account.id)" }
            }
        }
    }
}

/// `rendezvous sign-out`.
struct SignOutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sign-out", abstract: "End this session (or every session).")
    @OptionGroup var options: GlobalOptions
    @Flag(help: "End every session of the account.") var everywhere = false

    func run() async throws {
        try await options.withClient { client, output in
            if everywhere {
                let count = try await client.identity.signOutEverywhere()
                output.emit(["signed_out": true, "sessions_ended": count]) { "signed out of \(count) session(s)" }
            } else {
                try await client.identity.signOut()
                output.emit(["signed_out": true]) { "signed out" }
            }
        }
    }
}

/// `rendezvous whoami`.
struct WhoAmICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show the signed-in account.")
    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await options.withClient { client, output in
            let account = try await client.identity.getAccount()
            output.emit(AccountJSON.make(account)) {
                Output.fields([
                    ("account", account.id), ("app", account.app), ("username", account.username), ("email", account.email),
                    ("phone", account.phone), ("role", account.role), ("tier", account.tier),
                    ("membership", account.membershipStatus), ("anonymous", String(account.anonymous)),
                    ("sign-in methods", account.signInMethods.joined(separator: ", ")), ("created", iso(account.createdAt)),
                ])
            }
        }
    }
}

enum AccountJSON {
    static func make(_ account: Identity.Account) -> JSONObject {
        [
            "id": account.id, "app": account.app, "username": account.username, "email": account.email,
            "phone": account.phone, "role": account.role, "tier": account.tier, "membership_status": account.membershipStatus,
            "anonymous": account.anonymous, "sign_in_methods": account.signInMethods, "created_at": isoJSON(account.createdAt),
        ]
    }
}
