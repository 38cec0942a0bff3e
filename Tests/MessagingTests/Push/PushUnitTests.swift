import Contracts
import CryptoCore
import Foundation
@testable import Messaging
import Testing

/// Push's pieces without I/O: quiet hours, the payload, the provider token's reuse.
@Suite struct PushUnitTests {
    @Test(arguments: [
        // start, end, offset, UTC hour:minute, inside
        (22 * 60, 7 * 60, 0, 23 * 60, true),
        (22 * 60, 7 * 60, 0, 6 * 60 + 59, true),
        (22 * 60, 7 * 60, 0, 7 * 60, false),
        (22 * 60, 7 * 60, 0, 12 * 60, false),
        (9 * 60, 17 * 60, 0, 9 * 60, true),
        (9 * 60, 17 * 60, 0, 17 * 60, false),
        (22 * 60, 7 * 60, -300, 4 * 60, true),   // 23:00 at UTC-5
        (22 * 60, 7 * 60, 120, 4 * 60, true),    // 06:00 at UTC+2
        (22 * 60, 7 * 60, 120, 5 * 60, false),   // 07:00 at UTC+2
        (8 * 60, 8 * 60, 0, 8 * 60, false),      // start == end: no window
    ])
    func quietHours_coverTheirLocalWindow(start: Int, end: Int, offset: Int, utcMinute: Int, inside: Bool) {
        let hours = QuietHours(startMinute: start, endMinute: end, utcOffsetMinutes: offset)
        let day: Int64 = 1_764_028_800  // a UTC midnight
        #expect(hours.contains(unixSeconds: day + Int64(utcMinute) * 60) == inside)
    }

    @Test func quietHours_outsideTheirRanges_areInvalid() {
        #expect(QuietHours(startMinute: 0, endMinute: 1439, utcOffsetMinutes: 840).isValid)
        #expect(!QuietHours(startMinute: -1, endMinute: 10, utcOffsetMinutes: 0).isValid)
        #expect(!QuietHours(startMinute: 0, endMinute: 1440, utcOffsetMinutes: 0).isValid)
        #expect(!QuietHours(startMinute: 0, endMinute: 10, utcOffsetMinutes: 841).isValid)
    }

    @Test func aPayload_carriesTheAlertCategoryThreadAndDeepLink_withinFourKilobytes() throws {
        let long = String(repeating: "é", count: 5_000)
        for (body, quiet) in [("hi", false), (long, true)] {
            let bytes = PushPayload(title: "New message", body: body, category: .message, threadID: "t1",
                                    deepLink: "swivo://conversation/t1", quiet: quiet).bytes()
            #expect(bytes.count <= 4096)
            let json = try JSONValue.parseObject(bytes)
            let aps = try #require(json["aps"]?.objectValue)
            #expect(aps["category"]?.stringValue == "message")
            #expect(aps["thread-id"]?.stringValue == "t1")
            #expect(json["deep_link"]?.stringValue == "swivo://conversation/t1")
            #expect(aps["alert"]?.objectValue?["title"]?.stringValue == "New message")
            #expect((aps["sound"] == nil) == quiet)
            #expect((aps["interruption-level"]?.stringValue == "passive") == quiet)
        }
    }

    @Test func theProviderToken_isSignedByTheKey_reusedUntilItsAge_andReplacedOnce() throws {
        let key = try ECSigningKey.generate(keyID: "ABC123DEFG")
        let tokens = try APNsProviderToken(keyPEM: try key.pemBytes(), keyID: "ABC123DEFG", teamID: "TEAM123456",
                                           refreshAfter: .seconds(3_000))
        let first = try tokens.current()
        #expect(try tokens.current() == first)
        let parsed = try JWS.parse(first, allowedAlgorithms: [.es256])
        #expect(parsed.keyID == "ABC123DEFG")
        #expect(key.verifyingKey.isValidSignature(parsed.signature, for: parsed.signingInput))
        let claims = try JSONValue.parseObject(parsed.payload)
        #expect(claims["iss"]?.stringValue == "TEAM123456")
        #expect(abs((claims["iat"]?.int64Value ?? 0) - Int64(Date().timeIntervalSince1970)) <= 2)

        let second = try tokens.replace(first)
        #expect(second != first)
        // A second report about the token already replaced keeps the new one.
        #expect(try tokens.replace(first) == second)
        #expect(try tokens.current() == second)

        let young = try APNsProviderToken(keyPEM: try key.pemBytes(), keyID: "ABC123DEFG", teamID: "TEAM123456",
                                          refreshAfter: .zero)
        #expect(try young.current() != young.current())
    }

    @Test func aKeyThatIsNotP256_isRefused() {
        #expect(throws: (any Error).self) {
            _ = try APNsProviderToken(keyPEM: Array("not a key".utf8), keyID: "K", teamID: "T", refreshAfter: .seconds(60))
        }
    }

    @Test(arguments: [
        // step, started by me, proposed by me, I arrived, they arrived, pushed
        ("joined", true, false, false, false, true),
        ("joined", false, false, false, false, false),
        ("messages_reported", true, false, false, false, false),
        ("convergence_proposed", false, false, false, false, true),
        ("convergence_proposed", false, true, false, false, false),
        ("convergence_accepted", false, true, false, false, true),
        ("convergence_timed_out", false, true, false, false, true),
        ("convergence_timed_out", false, false, false, false, false),
        ("arrived", false, false, false, true, true),
        ("arrived", false, false, true, true, false),
        ("handshake_submitted", false, false, true, true, false),
        ("resolved", false, false, true, true, true),
    ])
    func encounterSteps_pushOnlyWhatTheRecipientMustAnswerOrSee(step: String, startedByMe: Bool, proposedByMe: Bool,
                                                                iArrived: Bool, theyArrived: Bool, pushed: Bool) {
        var encounter = Encounters.Encounter()
        encounter.startedByMe = startedByMe
        encounter.proposedByMe = proposedByMe
        encounter.iArrived = iArrived
        encounter.theyArrived = theyArrived
        var event = Realtime.EncounterStep()
        event.encounterID = "e1"
        event.step = step
        event.encounter = encounter
        #expect((PushPlanner.encounterAlert(event) != nil) == pushed)
    }
}
