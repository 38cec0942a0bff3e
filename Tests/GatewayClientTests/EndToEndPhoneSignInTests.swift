import Contracts
import Foundation
import GatewayClient
import Testing

/// Phone sign-in against the identity executable, through GatewayClient (ÉLITE offers it). The
/// executable's development sender writes each code to its log; the tests read it from there,
/// as the phone would read the SMS.
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndPhoneSignInTests {
    @Test func theCodeSent_signsIn_creatingTheAccountOfThatNumber() async throws {
        let phone = EndToEnd.uniquePhone()
        let client = try EndToEnd.client(app: "elite", deviceName: "iPhone")
        defer { client.close() }
        // As a user types it: spaces, parentheses and a dash.
        let typed = "\(phone.prefix(2)) (\(phone.dropFirst(2).prefix(3))) \(phone.dropFirst(5).prefix(4))-\(phone.dropFirst(9))"

        let started = try await client.identity.startPhoneSignIn(typed)
        #expect(started.phone == phone)
        #expect(started.resendAfterSeconds == 30)
        let expiresAt = Date(timeIntervalSince1970: Double(try #require(started.expiresAt).seconds))
        #expect(abs(expiresAt.timeIntervalSinceNow - 600) < 60)
        #expect(try client.currentSession() == nil)

        let code = try #require(try EndToEnd.identity.phoneCode(for: phone))
        let account = try await client.identity.verifyPhoneCode(code, phone: phone)
        #expect(account.phone == phone && account.signInMethods == ["phone"] && !account.anonymous)
        #expect(account.membershipStatus == "waitlisted")
        #expect(try client.currentSession()?.accountID == account.id)
        #expect(try await client.identity.listSessions().map(\.deviceName) == ["iPhone"])

        // A code signs in once.
        let reused = await gatewayError { _ = try await client.identity.verifyPhoneCode(code, phone: phone) }
        #expect(reused?.code == .failedPrecondition && reused?.reason == "NO_ACTIVE_CODE")
        #expect(try client.currentSession()?.accountID == account.id)
    }

    @Test func aWrongCode_isInvalidCode_countingDown_andTheRightOneStillWorks() async throws {
        let phone = EndToEnd.uniquePhone()
        let client = try EndToEnd.client(app: "elite")
        defer { client.close() }
        _ = try await client.identity.startPhoneSignIn(phone)
        let code = try #require(try EndToEnd.identity.phoneCode(for: phone))

        var remaining: [String?] = []
        for guess in [Self.wrong(code), Self.wrong(Self.wrong(code))] {
            let error = await gatewayError { _ = try await client.identity.verifyPhoneCode(guess, phone: phone) }
            #expect(error?.code == .unauthenticated && error?.reason == "INVALID_CODE")
            remaining.append(error?.details["attempts_remaining"])
        }
        #expect(remaining == ["4", "3"])
        #expect(try client.currentSession() == nil)
        _ = try await client.identity.verifyPhoneCode(code, phone: phone)
        #expect(try client.currentSession() != nil)
    }

    @Test func theSixthAttempt_findsTheCodeDead_evenWithTheRightCode() async throws {
        let phone = EndToEnd.uniquePhone()
        let client = try EndToEnd.client(app: "elite")
        defer { client.close() }
        _ = try await client.identity.startPhoneSignIn(phone)
        let code = try #require(try EndToEnd.identity.phoneCode(for: phone))

        for _ in 1...5 {
            let error = await gatewayError { _ = try await client.identity.verifyPhoneCode(Self.wrong(code), phone: phone) }
            #expect(error?.reason == "INVALID_CODE")
        }
        let sixth = await gatewayError { _ = try await client.identity.verifyPhoneCode(code, phone: phone) }
        #expect(sixth?.code == .resourceExhausted && sixth?.reason == "CODE_ATTEMPTS_EXHAUSTED")
        #expect(try client.currentSession() == nil)
    }

    @Test func askingAgainTooSoon_isThrottled_andTheFirstCodeStillWorks() async throws {
        let phone = EndToEnd.uniquePhone()
        let client = try EndToEnd.client(app: "elite")
        defer { client.close() }
        _ = try await client.identity.startPhoneSignIn(phone)
        let code = try #require(try EndToEnd.identity.phoneCode(for: phone))

        let throttled = await gatewayError { _ = try await client.identity.startPhoneSignIn(phone) }
        #expect(throttled?.code == .resourceExhausted && throttled?.reason == "CODE_SEND_THROTTLED")
        let retryAfter = try #require(Int(throttled?.details["retry_after_seconds"] ?? ""))
        #expect((1...30).contains(retryAfter))
        #expect(try EndToEnd.identity.phoneCode(for: phone) == code)

        // Another number is not held back by this one.
        _ = try await client.identity.startPhoneSignIn(EndToEnd.uniquePhone())
        _ = try await client.identity.verifyPhoneCode(code, phone: phone)
    }

    @Test func appsWithoutPhoneSignIn_andMalformedNumbers_areRefused() async throws {
        let elite = try EndToEnd.client(app: "elite")
        let swivo = try EndToEnd.client(app: "swivo")
        defer { elite.close(); swivo.close() }
        let notOffered = await gatewayError { _ = try await swivo.identity.startPhoneSignIn(EndToEnd.uniquePhone()) }
        #expect(notOffered?.code == .failedPrecondition && notOffered?.reason == "SIGN_IN_METHOD_NOT_ALLOWED")
        for number in ["4155550123", "+1 415 555 O123", "+123"] {
            let malformed = await gatewayError { _ = try await elite.identity.startPhoneSignIn(number) }
            #expect(malformed?.code == .invalidArgument && malformed?.reason == "INVALID_PHONE", "\(number)")
        }
    }

    /// Another 6-digit code than `code`.
    static func wrong(_ code: String) -> String {
        String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
    }
}

/// A phone code past its lifetime, on an identity executable of its own whose codes live 3
/// seconds and may be resent at once: the test waits for the expiry the server announced.
@Suite(.identityService(environment: ["RV_IDENTITY_PHONE_CODE_LIFETIME": "3",
                                      "RV_IDENTITY_PHONE_CODE_RESEND_INTERVAL": "0"]),
       .timeLimit(.minutes(1)))
struct EndToEndPhoneCodeExpiryTests {
    @Test func anExpiredCode_isCodeExpired_andANewCodeSignsIn() async throws {
        let phone = EndToEnd.uniquePhone()
        let client = try EndToEnd.client(app: "elite")
        defer { client.close() }
        let started = try await client.identity.startPhoneSignIn(phone)
        let code = try #require(try EndToEnd.identity.phoneCode(for: phone))
        let expiresAt = Date(timeIntervalSince1970: Double(try #require(started.expiresAt).seconds))
        #expect(expiresAt.timeIntervalSinceNow <= 3)

        // Expiry is the condition, so waiting for the time is the wait; a second past it covers
        // the server's sub-second part that the timestamp's seconds dropped.
        try await Task.sleep(for: .seconds(max(0, expiresAt.timeIntervalSinceNow) + 1.5))
        let expired = await gatewayError { _ = try await client.identity.verifyPhoneCode(code, phone: phone) }
        #expect(expired?.code == .unauthenticated && expired?.reason == "CODE_EXPIRED")
        #expect(try client.currentSession() == nil)

        // A new code can be had at once (no resend interval here), and works.
        _ = try await client.identity.startPhoneSignIn(phone)
        let fresh = try #require(try EndToEnd.identity.phoneCode(for: phone))
        _ = try await client.identity.verifyPhoneCode(fresh, phone: phone)
        #expect(try client.currentSession() != nil)
    }
}
