import Contracts
import Foundation
@testable import Messaging
import Testing

/// The hub without I/O: who gets an event, where a new subscriber starts, and a slow
/// subscriber cut off at its buffer's size.
@Suite struct RealtimeHubTests {
    static func event(_ text: String) -> Realtime.RealtimeEvent {
        var message = Messaging.Message()
        message.body = .text(text)
        var event = Realtime.RealtimeEvent()
        event.event = .message(Realtime.MessageReceived(message: message))
        return event
    }

    static func dispatch(_ hub: RealtimeHub, _ cursor: Int64, to recipient: UUID) {
        hub.dispatch(cursor: cursor, recipient: recipient) {
            var event = Self.event("m\(cursor)")
            event.cursor = cursor
            return event
        }
    }

    @Test func events_reachOnlyTheirRecipient_andMoveThePosition() async throws {
        let hub = RealtimeHub(position: 10, capacity: 8)
        let (ana, ben) = (UUID(), UUID())
        let subscription = hub.subscribe(ana)
        #expect(subscription.position == 10)
        Self.dispatch(hub, 11, to: ben)
        Self.dispatch(hub, 12, to: ana)
        #expect(hub.position == 12)
        #expect(hub.subscribe(ben).position == 12)
        var iterator = subscription.events.makeAsyncIterator()
        #expect(try await iterator.next()?.cursor == 12)
    }

    @Test func aSubscriberThatFallsBehind_isCutOff_afterItsBuffer() async throws {
        let hub = RealtimeHub(position: 0, capacity: 4)
        let ana = UUID()
        let subscription = hub.subscribe(ana)
        for cursor in 1...10 { Self.dispatch(hub, Int64(cursor), to: ana) }
        // Cut off at once: the hub holds nothing more for it.
        #expect(hub.subscriberCount == 0)
        var received: [Int64] = []
        do {
            for try await event in subscription.events { received.append(event.cursor) }
            Issue.record("the stream of a slow subscriber ended without an error")
        } catch let error as MessagingError {
            #expect(error == .subscriberTooSlow)
        }
        #expect(received == [1, 2, 3, 4])
    }

    @Test func aFinishedSubscriber_leavesTheHub() async throws {
        let hub = RealtimeHub(position: 0, capacity: 4)
        let subscription = hub.subscribe(UUID())
        let task = Task {
            for try await _ in subscription.events {}
        }
        #expect(hub.subscriberCount == 1)
        task.cancel()
        _ = await task.result
        #expect(hub.subscriberCount == 0)
    }

    @Test func anEndedSubscription_throwsItsError_afterWhatItHadBuffered() async throws {
        let hub = RealtimeHub(position: 0, capacity: 4)
        let subscription = hub.subscribe(UUID())
        let ana = UUID()
        let anas = hub.subscribe(ana)
        Self.dispatch(hub, 1, to: ana)
        anas.end(throwing: MessagingError.tokenExpired)
        #expect(hub.subscriberCount == 1)
        var received: [Int64] = []
        do {
            for try await event in anas.events { received.append(event.cursor) }
            Issue.record("an ended subscription finished without its error")
        } catch let error as MessagingError {
            #expect(error == .tokenExpired)
        }
        #expect(received == [1])
        subscription.end(throwing: CancellationError())
        #expect(hub.subscriberCount == 0)
    }

    /// A handler that fails before it reads its subscription (a refused cursor) leaves nothing
    /// behind in the hub.
    @Test func aSubscriptionDroppedUnread_leavesTheHub() {
        let hub = RealtimeHub(position: 0, capacity: 4)
        do {
            let subscription = hub.subscribe(UUID())
            #expect(subscription.position == 0 && hub.subscriberCount == 1)
        }
        #expect(hub.subscriberCount == 0)
    }
}
