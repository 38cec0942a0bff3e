import Contracts
import CryptoCore
import Foundation
@testable import Messaging
import Postgres
import Testing
import TestSupport

/// Planning call pushes from the realtime outbox against the real schema, without the network:
/// only the callee is woken, only for a ring (then a missed call), and not when they turned
/// calls off.
@Suite struct CallPushPlanningTests {
    static func event(_ call: Calls.Call, to recipient: String) -> Events.Event {
        var realtime = Realtime.RealtimeEvent()
        realtime.event = .callUpdated(Realtime.CallUpdated(call: call))
        var event = Events.Event()
        event.cursor = Int64.random(in: 1...Int64.max / 2)
        event.type = "CallUpdated"
        event.app = "elite"
        event.aggregateID = recipient
        event.payload = realtime.serializedBytes()
        event.occurredAt = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        return event
    }

    @Test func theCallee_isWokenForARing_andToldOfTheMissedCall_theCallerNever() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "messaging"))
        defer { pool.close() }
        _ = try await Migrator(schema: "messaging", migrations: try MessagingMigrations.all()).migrate(pool)
        let (caller, callee, muted) = (UUID(), UUID(), UUID())
        try await pool.withTransaction { connection in
            try await PushPreferencesStore.set(muted, categories: [.call: false], quietHours: nil, on: connection)
        }
        var call = Calls.Call()
        call.callID = UUID().uuidString.lowercased()
        call.conversationID = UUID().uuidString.lowercased()
        call.callerID = caller.uuidString.lowercased()
        call.calleeID = callee.uuidString.lowercased()
        let deadline = Int64(Date().timeIntervalSince1970) + 40
        call.ringDeadline = Timestamp(seconds: deadline)
        let planner = PushPlanner(maximumAge: .seconds(600))
        for state in [Calls.CallState.ringing, .accepted, .ended, .missed] {
            call.state = state
            try await pool.withTransaction { connection in
                for recipient in [caller, callee] {
                    try await planner.apply(Self.event(call, to: recipient.uuidString.lowercased()), source: "realtime",
                                            on: connection)
                }
            }
        }
        var mutedCall = call
        mutedCall.calleeID = muted.uuidString.lowercased()
        mutedCall.state = .ringing
        try await pool.withTransaction { connection in
            try await planner.apply(Self.event(mutedCall, to: mutedCall.calleeID), source: "realtime", on: connection)
        }

        let rows = try await pool.withConnection { connection in
            try await connection.query("""
                SELECT account_id, category, payload, collapse_id, priority, extract(epoch FROM expires_at)::int8
                FROM messaging.push_jobs WHERE reference = $1 ORDER BY id
                """, [.text(call.callID)])
        }
        #expect(try rows.map { try $0.decode(0, as: UUID.self) } == [callee, callee])
        let payloads = try rows.map { try JSONValue.parseObject(try $0.decode(2, as: [UInt8].self)) }
        for row in rows {
            #expect(try row.decode(1, as: Int16.self) == NotificationCategory.call.rawValue)
            #expect(try row.decode(3, as: String?.self) == "call-\(call.callID)")
            #expect(try row.decode(4, as: Int16.self) == 10)
        }
        #expect(try rows.first?.decode(5, as: Int64.self) == deadline)
        #expect(payloads.first?["aps"]?.objectValue?["interruption-level"]?.stringValue == "time-sensitive")
        #expect(payloads.first?["call_id"]?.stringValue == call.callID)
        #expect(payloads.last?["aps"]?.objectValue?["alert"]?.objectValue?["title"]?.stringValue == "Missed video call")
        #expect(payloads.last?["aps"]?.objectValue?["interruption-level"] == nil)
        _ = try await pool.withConnection { connection in
            try await connection.execute("DELETE FROM messaging.push_jobs WHERE reference = $1", [.text(call.callID)])
            try await PushPreferencesStore.purge(muted, on: connection)
        }
    }
}
