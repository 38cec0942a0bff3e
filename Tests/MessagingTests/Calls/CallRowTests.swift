import Foundation
@testable import Messaging
import Testing

/// The call's transitions, without I/O.
@Suite struct CallRowTests {
    static let caller = UUID()
    static let callee = UUID()

    static func row(_ state: CallRow.State = .ringing, now: Int64 = 1_000, ringDeadline: Int64 = 2_000,
                    callerAlive: Int64? = 1_500, calleeAlive: Int64? = nil, closed: Bool = false,
                    signals: Int32 = 0) -> CallRow {
        CallRow(id: UUID(), conversation: UUID(), app: "elite", caller: caller, callee: callee, state: state, createdAt: 0,
                ringDeadline: ringDeadline, acceptedAt: nil, endedAt: nil, endedBy: nil, signals: signals, callerStream: UUID(),
                callerAliveUntil: callerAlive, callerReadThrough: 0, calleeStream: nil, calleeAliveUntil: calleeAlive,
                calleeReadThrough: 0, conversationClosed: closed, now: now)
    }

    @Test(arguments: [
        (row(now: 1_499), nil),
        (row(now: 1_999, callerAlive: 1_999 + 1), nil),
        (row(now: 2_000), CallRow.State.missed),
        (row(now: 1_600), .cancelled),
        (row(closed: true), .cancelled),
        // A callee whose stream dropped while it rings does not end the ring.
        (row(calleeAlive: 10), nil),
        (row(.accepted, calleeAlive: 1_500), nil),
        (row(.accepted, now: 3_000, callerAlive: 4_000, calleeAlive: 4_000), nil),
        (row(.accepted, calleeAlive: 999), .ended),
        (row(.accepted, callerAlive: 1_000, calleeAlive: 1_500), .ended),
        (row(.accepted, calleeAlive: 1_500, closed: true), .ended),
        (row(.declined, now: 5_000), nil),
    ])
    func overdue(_ row: CallRow, expected: CallRow.State?) {
        #expect(row.overdue == expected)
    }

    @Test func onlyTheCallee_acceptsOrDeclines_aRingingCall() throws {
        var call = Self.row()
        #expect(throws: CallError.notTheCallee) { try call.accept(by: .caller) }
        #expect(throws: CallError.notTheCallee) { try call.decline(by: .caller) }
        try call.accept(by: .callee)
        #expect(call.state == .accepted && call.acceptedAt == 1_000)
        #expect(throws: CallError.wrongState(.accepted)) { try call.decline(by: .callee) }
    }

    @Test func hangingUp_dependsOnWhoAndWhen() {
        var ringing = Self.row()
        #expect(ringing.hangUp(by: .caller) && ringing.state == .cancelled && ringing.endedBy == Self.caller)
        var refused = Self.row()
        #expect(refused.hangUp(by: .callee) && refused.state == .declined && refused.endedBy == Self.callee)
        var accepted = Self.row(.accepted)
        #expect(accepted.hangUp(by: .callee) && accepted.state == .ended && accepted.endedAt == 1_000)
        #expect(!accepted.hangUp(by: .caller) && accepted.endedBy == Self.callee)
    }

    @Test func signals_areNumbered_andBounded() throws {
        var call = Self.row(signals: 2)
        #expect(try call.takeSignalSequence(by: .caller, limit: 4) == 3)
        #expect(throws: CallError.notAccepted) { try call.takeSignalSequence(by: .callee, limit: 4) }
        call.state = .accepted
        #expect(try call.takeSignalSequence(by: .callee, limit: 4) == 4)
        #expect(throws: CallError.tooManySignals(limit: 4)) { try call.takeSignalSequence(by: .caller, limit: 4) }
        call.state = .ended
        #expect(throws: CallError.wrongState(.ended)) { try call.takeSignalSequence(by: .caller, limit: 10) }
    }
}
