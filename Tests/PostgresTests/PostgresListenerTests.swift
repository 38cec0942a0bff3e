import Foundation
import Postgres
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(1))) struct PostgresListenerTests {
    private func notify(_ pool: PostgresPool, _ channel: String, _ payload: String) async throws {
        try await pool.withConnection { _ = try await $0.query("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)]) }
    }

    @Test func notifications_areDelivered_andSurviveABackendTermination() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let application = TestDatabase.uniqueName("rv-listener")
        let listener = PostgresListener(configuration: TestDatabase.configuration(applicationName: application))
        defer { listener.close() }
        let channel = "Match_\(UUID().uuidString.prefix(6))"  // mixed case: names are exact
        let other = "other_\(UUID().uuidString.prefix(6))"
        let events = try await listener.listen(channel)
        let otherEvents = try await listener.listen(other)

        try await notify(pool, channel, "first")
        try await notify(pool, other, "elsewhere")
        var received: [PostgresListener.Event] = []
        for await event in events {
            received.append(event)
            break
        }
        #expect(received == [.notification(.init(channel: channel, payload: "first"))])
        for await event in otherEvents {
            #expect(event == .notification(.init(channel: other, payload: "elsewhere")))
            break
        }

        #expect(try await TestDatabase.terminateBackends(applicationName: application) == 1)
        var sawReconnect = false
        // After the reconnect signal, the LISTEN is back: a new NOTIFY arrives.
        for await event in events {
            if event == .reconnected {
                sawReconnect = true
                try await notify(pool, channel, "after")
                continue
            }
            #expect(sawReconnect)
            #expect(event == .notification(.init(channel: channel, payload: "after")))
            break
        }
        #expect(sawReconnect)
    }

    @Test func payloads_areDeliveredInCommitOrder() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let listener = PostgresListener(configuration: TestDatabase.configuration())
        defer { listener.close() }
        let channel = TestDatabase.uniqueName("ordered")
        let events = try await listener.listen(channel)
        for index in 0..<50 { try await notify(pool, channel, "\(index)") }
        var payloads: [String] = []
        for await event in events {
            if case .notification(let notification) = event { payloads.append(notification.payload) }
            if payloads.count == 50 { break }
        }
        #expect(payloads == (0..<50).map(String.init))
    }
}
