#if canImport(Glibc)
import Glibc
#endif

/// Identifies a scheduled timer.
package struct TimerID: Hashable, Sendable {
    fileprivate let value: UInt64
}

/// Monotonic time in nanoseconds.
extension Duration {
    /// Whole nanoseconds, negative durations as 0: for deadlines on `MonotonicClock`.
    package var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}

package enum MonotonicClock {
    package static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// A binary min-heap of deadlines owned by one event loop.
struct TimerHeap {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
        var body: () -> Void
    }

    private var heap: [Entry] = []
    private var cancelled: Set<UInt64> = []
    private var nextID: UInt64 = 1

    mutating func schedule(at deadline: UInt64, _ body: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID += 1
        heap.append(Entry(deadline: deadline, id: id, body: body))
        siftUp(heap.count - 1)
        return TimerID(value: id)
    }

    mutating func cancel(_ id: TimerID) {
        cancelled.insert(id.value)
        // Keep the heap from filling with dead entries when most timers are cancelled.
        if cancelled.count > 1024 && cancelled.count > heap.count / 2 { compact() }
    }

    /// Milliseconds until the earliest live deadline, or -1 when there is none.
    mutating func millisecondsUntilNext(now: UInt64) -> Int32 {
        while let first = heap.first, cancelled.contains(first.id) {
            cancelled.remove(first.id)
            removeFirst()
        }
        guard let first = heap.first else { return -1 }
        if first.deadline <= now { return 0 }
        let ms = (first.deadline - now + 999_999) / 1_000_000
        return Int32(min(ms, 60_000))
    }

    /// Removes the timers due at `now` and returns their bodies, for the caller to run.
    mutating func takeExpired(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let first = heap.first, first.deadline <= now {
            removeFirst()
            if cancelled.remove(first.id) == nil { due.append(first.body) }
        }
        return due
    }

    private mutating func compact() {
        heap.removeAll { cancelled.contains($0.id) }
        cancelled.removeAll()
        heap.sort { $0.deadline < $1.deadline }
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
