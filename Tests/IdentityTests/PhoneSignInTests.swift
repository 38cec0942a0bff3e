import Contracts
import Foundation
@testable import Identity
import Postgres
import RPC
import Testing

/// Phone one-time code sign-in over a live socket (ÉLITE offers phone sign-in); codes are read
/// from a capturing sender, as a phone would receive them.
@Suite struct PhoneSignInTests {
    /// A harness whose codes can be resent at once, unless a test sets otherwise.
    static func start(_ sender: CapturingCodeSender,
                      _ configure: @escaping (inout IdentitySettings) -> Void = { _ in }) async throws -> IdentityHarness {
        try await IdentityHarness.startForSignIn(ProviderTokenMinter(), sender: sender) { settings in
            settings.phoneCodes.resendInterval = 0
            configure(&settings)
        }
    }

    @Test func rightCode_createsTheAccount_thenSignsInToIt() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender)
        let phone = IdentityHarness.uniquePhone()
        let spaced = phone.prefix(2) + " (" + phone.dropFirst(2).prefix(3) + ") " + phone.dropFirst(5)
        let started = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: String(spaced)))
        #expect(started.phone == phone)
        let expiresIn = Double(started.expiresAt?.seconds ?? 0) - Date().timeIntervalSince1970
        #expect(expiresIn > 590 && expiresIn <= 601)
        let code = try #require(sender.lastCode(to: phone))
        #expect(code.count == 6 && code.allSatisfy(\.isASCIIDigit))
        #expect(sender.sent.last?.app == "elite")

        let session = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: code, deviceName: "iPhone"))
        let account = try #require(session.account)
        #expect(account.phone == phone && account.signInMethods == ["phone"] && !account.anonymous)
        #expect(account.membershipStatus == "waitlisted")
        #expect(try await harness.eventPayloads("AccountCreated", aggregateID: account.id).count == 1)

        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let again = try await harness.client.verifyPhoneCode(
            .init(app: "elite", phone: phone, code: try #require(sender.lastCode(to: phone))))
        #expect(again.account?.id == account.id && again.sessionID != session.sessionID)
        #expect(try await harness.eventPayloads("AccountCreated", aggregateID: account.id).count == 1)
        await harness.stop()
    }

    @Test func codeIsStoredOnlyAsAHash() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender)
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let code = try #require(sender.lastCode(to: phone))
        let rows = try await harness.pool.withConnection { connection in
            try await connection.query("SELECT code_hash, code_salt FROM identity.phone_codes WHERE app = 'elite' AND phone = $1",
                                       [.text(phone)])
        }
        let hash = try rows[0].decode(0, as: [UInt8].self)
        let salt = try rows[0].decode(1, as: [UInt8].self)
        #expect(hash.count == 32 && salt.count == 16)
        #expect(!String(decoding: hash, as: UTF8.self).contains(code))
        await harness.stop()
    }

    @Test func numbersLastSentOverADayAgo_arePurgedByLaterSends() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender)
        let stale = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: stale))
        let count = "SELECT count(*) FROM identity.phone_codes WHERE app = 'elite' AND phone = $1"
        try await harness.pool.withConnection { connection in
            _ = try await connection.execute(
                "UPDATE identity.phone_codes SET last_sent_at = now() - interval '10 years' WHERE app = 'elite' AND phone = $1",
                [.text(stale)])
        }
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: IdentityHarness.uniquePhone()))
        let left = try await harness.pool.withConnection { connection in
            try await connection.query(count, [.text(stale)])
        }
        #expect(try left[0].decode(0, as: Int64.self) == 0)
        await harness.stop()
    }

    @Test func wrongCode_isInvalidCode_countingDown_andTheRightOneStillWorks() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender)
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let code = try #require(sender.lastCode(to: phone))
        for (attempt, guess) in [Self.wrong(code), "12345", "abcdef"].enumerated() {
            let error = await rpcError {
                _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: guess))
            }
            #expect(error?.code == .unauthenticated && error?.reason == "INVALID_CODE")
            #expect(error?.details["attempts_remaining"] == String(4 - attempt))
        }
        _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: code))
        await harness.stop()
    }

    @Test func sixthAttempt_findsTheCodeDead_evenWhenRight_andANewCodeWorks() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender)
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let code = try #require(sender.lastCode(to: phone))
        for _ in 0..<5 {
            let error = await rpcError {
                _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: Self.wrong(code)))
            }
            #expect(error?.reason == "INVALID_CODE")
        }
        let sixth = await rpcError {
            _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: code))
        }
        #expect(sixth?.code == .resourceExhausted && sixth?.reason == "CODE_ATTEMPTS_EXHAUSTED")
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        _ = try await harness.client.verifyPhoneCode(
            .init(app: "elite", phone: phone, code: try #require(sender.lastCode(to: phone))))
        await harness.stop()
    }

    @Test func expiredCode_isCodeExpired() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender) { $0.phoneCodes.lifetime = 1 }
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let code = try #require(sender.lastCode(to: phone))
        try await Task.sleep(for: .milliseconds(1500))
        let error = await rpcError {
            _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: code))
        }
        #expect(error?.code == .unauthenticated && error?.reason == "CODE_EXPIRED")
        await harness.stop()
    }

    @Test func resend_withinTheInterval_orPastTheHourlyCap_isThrottled() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender) { settings in
            settings.phoneCodes.resendInterval = 30
        }
        let phone = IdentityHarness.uniquePhone()
        let started = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        #expect(started.resendAfterSeconds == 30)
        let soon = await rpcError { _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone)) }
        #expect(soon?.code == .resourceExhausted && soon?.reason == "CODE_SEND_THROTTLED")
        #expect((1...30).contains(Int(soon?.details["retry_after_seconds"] ?? "") ?? 0))
        #expect(sender.sent.filter { $0.phone == phone }.count == 1)
        await harness.stop()

        let capped = try await Self.start(sender) { $0.phoneCodes.maxSendsPerHour = 3 }
        let other = IdentityHarness.uniquePhone()
        for _ in 0..<3 { _ = try await capped.client.startPhoneSignIn(.init(app: "elite", phone: other)) }
        let fourth = await rpcError { _ = try await capped.client.startPhoneSignIn(.init(app: "elite", phone: other)) }
        #expect(fourth?.code == .resourceExhausted && fourth?.reason == "CODE_SEND_THROTTLED")
        #expect((3500...3600).contains(Int(fourth?.details["retry_after_seconds"] ?? "") ?? 0))
        #expect(sender.sent.filter { $0.phone == other }.count == 3)
        await capped.stop()
    }

    @Test func usedCode_cannotSignInAgain_andNoCodeSent_isNoActiveCode() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender)
        let phone = IdentityHarness.uniquePhone()
        let never = await rpcError {
            _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: "123456"))
        }
        #expect(never?.code == .failedPrecondition && never?.reason == "NO_ACTIVE_CODE")
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let code = try #require(sender.lastCode(to: phone))
        _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: code))
        let reused = await rpcError {
            _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: code))
        }
        #expect(reused?.code == .failedPrecondition && reused?.reason == "NO_ACTIVE_CODE")
        await harness.stop()
    }

    @Test func aNewCode_replacesTheOldOne() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender)
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        var old = try #require(sender.lastCode(to: phone))
        var new = old
        while new == old {  // one chance in a million that two codes are equal
            old = new
            _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
            new = try #require(sender.lastCode(to: phone))
        }
        let stale = await rpcError {
            _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: old))
        }
        #expect(stale?.reason == "INVALID_CODE")
        _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: new))
        await harness.stop()
    }

    @Test func concurrentVerifies_ofTheRightCode_makeExactlyOneSession() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(sender)
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let request = Identity.VerifyPhoneCodeRequest(app: "elite", phone: phone, code: try #require(sender.lastCode(to: phone)))
        let client = harness.client
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do {
                        return "session " + (try await client.verifyPhoneCode(request).sessionID)
                    } catch let error as RPCError {
                        return error.reason ?? "no reason"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0.hasPrefix("session ") }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == "NO_ACTIVE_CODE" }.count == 3, "\(outcomes)")
        let sessions = try await harness.pool.withConnection { connection in
            try await connection.query("""
                SELECT count(*) FROM identity.sessions s JOIN identity.phone_credentials p ON p.account_id = s.account_id
                WHERE p.app = 'elite' AND p.phone = $1
                """, [.text(phone)])
        }
        #expect(try sessions[0].decode(0, as: Int64.self) == 1)
        await harness.stop()
    }

    @Test(arguments: ["", "4155550123", "+0155550123", "+1 415 555 0123 45678", "+1-415-abc-0123", "++14155550123",
                      "+123456", "+1415555０123", "+1 415 555 0123 ext 9"])
    func malformedPhone_isInvalidPhone(_ phone: String) async throws {
        let harness = try await Self.start(CapturingCodeSender())
        let error = await rpcError { _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone)) }
        #expect(error?.code == .invalidArgument && error?.reason == "INVALID_PHONE")
        let verify = await rpcError {
            _ = try await harness.client.verifyPhoneCode(.init(app: "elite", phone: phone, code: "123456"))
        }
        #expect(verify?.reason == "INVALID_PHONE")
        await harness.stop()
    }

    @Test func internationalPrefix00_isAcceptedAsPlus() throws {
        #expect(try PhoneNumber("0044 20 7946 0958").value == "+442079460958")
        #expect(try PhoneNumber("+1.415.555.0123").value == "+14155550123")
    }

    @Test func appWithoutPhoneSignIn_isRefused_andAFailingSender_isCodeDeliveryFailed() async throws {
        let harness = try await Self.start(CapturingCodeSender()) { $0.oneTimeCodeSender = FailingCodeSender() }
        let phone = IdentityHarness.uniquePhone()
        let notAllowed = await rpcError { _ = try await harness.client.startPhoneSignIn(.init(app: "momento", phone: phone)) }
        #expect(notAllowed?.code == .failedPrecondition && notAllowed?.reason == "SIGN_IN_METHOD_NOT_ALLOWED")
        let down = await rpcError { _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone)) }
        #expect(down?.code == .unavailable && down?.reason == "CODE_DELIVERY_FAILED")
        await harness.stop()
    }

    /// A 6-digit code other than `code`.
    static func wrong(_ code: String) -> String {
        code == "000000" ? "000001" : "000000"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
