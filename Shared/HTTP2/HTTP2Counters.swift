import Synchronization

/// Counts shared by a server's connections, readable from any thread (for tests and metrics).
package final class HTTP2Counters: Sendable {
    private let buffered = Atomic<Int>(0)

    package init() {}

    /// Response bytes queued in the server's memory and not yet taken by the kernel: stream
    /// buffers waiting for flow-control window plus connection output waiting for the socket.
    package var bufferedOutboundBytes: Int { buffered.load(ordering: .relaxed) }

    func add(_ bytes: Int) {
        if bytes != 0 { buffered.add(bytes, ordering: .relaxed) }
    }
}
