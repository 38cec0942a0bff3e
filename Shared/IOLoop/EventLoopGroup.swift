#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A fixed set of event loops, one per core the process may use by default (`AvailableCores`),
/// handed out round-robin.
package final class EventLoopGroup: Sendable {
    package let loops: [EventLoop]
    private let nextIndex = Atomic<UInt>(0)

    /// Creates `count` loops (`AvailableCores.count` when nil).
    package init(loopCount count: Int? = nil, name: String = "rv-loop") throws {
        let total = max(1, count ?? AvailableCores.count)
        var loops: [EventLoop] = []
        for index in 0..<total { loops.append(try EventLoop(name: "\(name)-\(index)")) }
        self.loops = loops
    }

    /// The next loop in round-robin order.
    package func next() -> EventLoop {
        let index = nextIndex.add(1, ordering: .relaxed).oldValue
        return loops[Int(index % UInt(loops.count))]
    }

    /// A process-wide group for clients that bring none.
    package static let shared: EventLoopGroup = {
        // A failure here means the process cannot create threads or epoll instances at all.
        try! EventLoopGroup(loopCount: 1, name: "rv-client")
    }()

    package func shutdown() {
        for loop in loops { loop.stop() }
    }
}
