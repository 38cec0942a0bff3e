import Contracts
import Foundation
@testable import Messaging
import Synchronization
import Testing

/// Group commit without I/O: concurrent sends share batches, each answered with its own
/// outcome only after its batch was stored, and a failed batch fails no send but its own.
@Suite struct MessageSendQueueTests {
    /// A store that records its batches and answers each send with its text as a message,
    /// optionally held until `release` and failing the sends whose text is "bad".
    final class FakeStore: Sendable {
        let batches = Mutex<[[String]]>([])
        let running = Atomic<Int>(0)
        let mostRunning = Atomic<Int>(0)
        /// Sends answered, counted by the test.
        let answered = Atomic<Int>(0)
        /// While true, every batch waits.
        let held: Atomic<Bool>

        init(held: Bool = false) { self.held = Atomic(held) }

        func release() { held.store(false, ordering: .relaxed) }

        func store(_ sends: [MessageSend]) async throws -> [MessageSend.Outcome] {
            let now = running.add(1, ordering: .relaxed).newValue
            mostRunning.max(now, ordering: .relaxed)
            defer { running.subtract(1, ordering: .relaxed) }
            let texts = sends.map { if case .text(let text) = $0.body { text } else { "" } }
            batches.withLock { $0.append(texts) }
            while held.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(2)) }
            try await Task.sleep(for: .milliseconds(5))
            if texts.contains("bad") { throw CancellationError() }
            return texts.enumerated().map { index, text in
                var message = Messaging.Message()
                message.body = .text(text)
                message.sequence = Int64(index + 1)
                return .stored(message)
            }
        }
    }

    static func send(_ text: String) -> MessageSend {
        MessageSend(conversation: UUID(), sender: UUID(), app: "swivo", clientMessageID: text, body: .text(text))
    }

    static func text(_ outcome: MessageSend.Outcome) -> String? {
        if case .stored(let message) = outcome, case .text(let text)? = message.body { return text }
        return nil
    }

    @Test func concurrentSends_shareBatches_andEachGetsItsOwnAnswer() async throws {
        let store = FakeStore()
        let queue = MessageSendQueue(maxBatch: 16, maxRunning: 2) { try await store.store($0) }
        let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for n in 0..<200 { group.addTask { (n, Self.text(try await queue.send(Self.send("m\(n)")))) } }
            return try await group.reduce(into: [Int: String?]()) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0.value == "m\($0.key)" })
        let batches = store.batches.withLock { $0 }
        #expect(batches.flatMap { $0 }.count == 200)
        #expect(Set(batches.flatMap { $0 }).count == 200)
        #expect(batches.count < 200, "concurrent sends shared no batch")
        #expect(batches.allSatisfy { $0.count <= 16 })
        #expect(store.mostRunning.load(ordering: .relaxed) <= 2)
    }

    @Test func aLoneSend_isStoredAtOnce_inABatchOfItsOwn() async throws {
        let store = FakeStore()
        let queue = MessageSendQueue { try await store.store($0) }
        #expect(Self.text(try await queue.send(Self.send("alone"))) == "alone")
        #expect(store.batches.withLock { $0 } == [["alone"]])
    }

    @Test func noSend_isAnswered_beforeItsBatchIsStored() async throws {
        let store = FakeStore(held: true)
        let queue = MessageSendQueue(maxRunning: 1) { try await store.store($0) }
        let sends = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<10 {
                    group.addTask {
                        _ = try await queue.send(Self.send("held \(n)"))
                        store.answered.add(1, ordering: .relaxed)
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(store.answered.load(ordering: .relaxed) == 0)
        store.release()
        try await sends.value
        #expect(store.answered.load(ordering: .relaxed) == 10)
    }

    @Test func aFailedBatch_isRetriedSendBySend_soOnlyTheBadSendFails() async throws {
        let store = FakeStore(held: true)
        let queue = MessageSendQueue(maxRunning: 1) { try await store.store($0) }
        // The first send occupies the only runner; the next three wait and go as one batch.
        let first = Task { try await queue.send(Self.send("first")) }
        try await Task.sleep(for: .milliseconds(50))
        let rest = ["good 1", "bad", "good 2"].map { text in
            Task { () -> String? in
                do { return Self.text(try await queue.send(Self.send(text))) } catch { return nil }
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        store.release()
        #expect(Self.text(try await first.value) == "first")
        var answers: [String?] = []
        for task in rest { answers.append(await task.value) }
        #expect(answers == ["good 1", nil, "good 2"])
        let batches = store.batches.withLock { $0 }
        #expect(batches.count == 5)
        #expect(batches.first == ["first"])
        #expect(batches.count == 5 && Set(batches[1]) == ["good 1", "bad", "good 2"] && batches[1].count == 3)
        #expect(batches.dropFirst(2).map(\.count) == [1, 1, 1])
    }
}
