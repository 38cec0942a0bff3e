import IOLoop
import Runtime
import Synchronization
import Testing

/// Group commit without I/O: concurrent writes share batches, each answered with its own
/// outcome only after its batch was stored, and a failed batch fails no write but its own.
@Suite struct GroupCommitQueueTests {
    typealias Queue = GroupCommitQueue<String, String>

    /// A store that records its batches and answers each write with "stored" and its text,
    /// optionally held until `release` and failing the batches holding "bad".
    final class FakeStore: Sendable {
        let batches = Mutex<[[String]]>([])
        let running = Atomic<Int>(0)
        let mostRunning = Atomic<Int>(0)
        /// Writes answered, counted by the test.
        let answered = Atomic<Int>(0)
        /// While true, every batch waits.
        let held: Atomic<Bool>

        init(held: Bool = false) { self.held = Atomic(held) }

        func release() { held.store(false, ordering: .relaxed) }

        func store(_ texts: [String]) async throws -> [String] {
            let now = running.add(1, ordering: .relaxed).newValue
            mostRunning.max(now, ordering: .relaxed)
            defer { running.subtract(1, ordering: .relaxed) }
            batches.withLock { $0.append(texts) }
            while held.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(2)) }
            try await Task.sleep(for: .milliseconds(5))
            if texts.contains("bad") { throw CancellationError() }
            return texts.map { "stored \($0)" }
        }
    }

    @Test func concurrentWrites_shareBatches_andEachGetsItsOwnAnswer() async throws {
        let store = FakeStore()
        let queue = Queue(maxBatch: 16, maxRunning: 2) { try await store.store($0) }
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for n in 0..<200 { group.addTask { (n, try await queue.submit("m\(n)")) } }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0.value == "stored m\($0.key)" })
        let batches = store.batches.withLock { $0 }
        #expect(batches.flatMap { $0 }.count == 200)
        #expect(Set(batches.flatMap { $0 }).count == 200)
        #expect(batches.count < 200, "concurrent writes shared no batch")
        #expect(batches.allSatisfy { $0.count <= 16 })
        #expect(store.mostRunning.load(ordering: .relaxed) <= 2)
    }

    @Test func aLoneWrite_isStoredAtOnce_inABatchOfItsOwn() async throws {
        let store = FakeStore()
        let queue = Queue { try await store.store($0) }
        #expect(try await queue.submit("alone") == "stored alone")
        #expect(store.batches.withLock { $0 } == [["alone"]])
    }

    @Test func noWrite_isAnswered_beforeItsBatchIsStored() async throws {
        let store = FakeStore(held: true)
        let queue = Queue(maxRunning: 1) { try await store.store($0) }
        let writes = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<10 {
                    group.addTask {
                        _ = try await queue.submit("held \(n)")
                        store.answered.add(1, ordering: .relaxed)
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(store.answered.load(ordering: .relaxed) == 0)
        store.release()
        try await writes.value
        #expect(store.answered.load(ordering: .relaxed) == 10)
    }

    @Test func aFailedBatch_isRetriedOneByOne_soOnlyTheBadWriteFails() async throws {
        let store = FakeStore(held: true)
        let queue = Queue(maxRunning: 1) { try await store.store($0) }
        // The first write occupies the only runner; the next three wait and go as one batch.
        let first = Task { try await queue.submit("first") }
        try await Task.sleep(for: .milliseconds(50))
        let rest = ["good 1", "bad", "good 2"].map { text in
            Task { () -> String? in
                do { return try await queue.submit(text) } catch { return nil }
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        store.release()
        #expect(try await first.value == "stored first")
        var answers: [String?] = []
        for task in rest { answers.append(await task.value) }
        #expect(answers == ["stored good 1", nil, "stored good 2"])
        let batches = store.batches.withLock { $0 }
        #expect(batches.count == 5)
        #expect(batches.first == ["first"])
        #expect(batches.count == 5 && Set(batches[1]) == ["good 1", "bad", "good 2"] && batches[1].count == 3)
        #expect(batches.dropFirst(2).map(\.count) == [1, 1, 1])
    }

    /// A store that drops an answer fails the write it dropped (and, tried alone, each of the
    /// batch's) instead of leaving its caller waiting forever.
    @Test func aStoreAnsweringTooFew_failsItsWrites_ratherThanLeavingThemWaiting() async throws {
        let queue = Queue { items in items.count > 1 ? Array(items.dropLast().map { "stored \($0)" }) : [] }
        final class Counts: Sendable {
            let finished = Atomic<Int>(0)
            let refused = Atomic<Int>(0)
        }
        let counts = Counts()
        for n in 0..<3 {
            Task {
                do { _ = try await queue.submit("w\(n)") } catch is Queue.MismatchedAnswers { counts.refused.add(1, ordering: .relaxed) }
                counts.finished.add(1, ordering: .relaxed)
            }
        }
        // Not a task group: a write left waiting would hold the test forever.
        let deadline = ContinuousClock.now + .seconds(5)
        while counts.finished.load(ordering: .relaxed) < 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(counts.finished.load(ordering: .relaxed) == 3, "a write is still waiting for its answer")
        #expect(counts.refused.load(ordering: .relaxed) == 3)
    }

    /// With a lane per event loop, writes from two loops' callers never share a batch, each
    /// lane's batches are stored on its own loop (its callers are answered with no hop between
    /// threads), and `maxRunning` holds per lane. The shared lane, the default, mixes them.
    @Test(arguments: [Queue.Lanes.perEventLoop, .shared])
    func writesFromTwoLoops_shareBatchesOnlyWithinTheirLoop_whenLanesArePerLoop(lanes: Queue.Lanes) async throws {
        let group = try EventLoopGroup(loopCount: 2, name: "gcq-test")
        defer { group.shutdown() }
        let store = FakeStore(held: true)
        /// Each batch with the loop it was stored on.
        let storedOn = Mutex<[(loop: String?, texts: [String])]>([])
        let queue = Queue(maxBatch: 64, maxRunning: 1, lanes: lanes) { texts in
            storedOn.withLock { $0.append((EventLoop.current?.name, texts)) }
            return try await store.store(texts)
        }
        // The first write holds its lane's runner (the only one, when shared), so the next ones
        // wait together and go in the batches that follow.
        let first = group.loops[0]
        let holding = Task(executorPreference: first) { try await queue.submit("\(first.name) first") }
        try await Task.sleep(for: .milliseconds(50))
        let writes = group.loops.flatMap { loop in
            (0..<20).map { n in
                Task(executorPreference: loop) { try await queue.submit("\(loop.name) \(n)") }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        store.release()
        #expect(try await holding.value == "stored \(first.name) first")
        for (index, write) in writes.enumerated() {
            let loop = group.loops[index / 20]
            #expect(try await write.value == "stored \(loop.name) \(index % 20)")
        }
        let batches = storedOn.withLock { $0 }
        #expect(batches.flatMap(\.texts).count == 41)
        let mixed = batches.filter { batch in Set(batch.texts.map { $0.split(separator: " ")[0] }).count > 1 }
        switch lanes {
        case .perEventLoop:
            #expect(mixed.isEmpty, "a batch held two loops' writes: \(mixed.map(\.texts))")
            #expect(batches.allSatisfy { batch in batch.texts.allSatisfy { $0.hasPrefix("\(batch.loop ?? "no loop") ") } },
                    "a lane's batch was stored off its loop: \(batches)")
            #expect(store.mostRunning.load(ordering: .relaxed) == 2, "one runner per lane, both lanes at once")
        case .shared:
            #expect(!mixed.isEmpty, "the shared lane kept the loops apart: \(batches.map(\.texts))")
            #expect(store.mostRunning.load(ordering: .relaxed) == 1)
        }
    }
}
