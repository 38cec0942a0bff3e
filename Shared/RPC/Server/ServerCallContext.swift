import Synchronization

/// What a handler knows about its call and may set on the response.
package final class ServerCallContext: Sendable {
    /// The method's path, `/package.Service/Method`.
    package let path: String
    /// The request's custom metadata.
    package let requestMetadata: Metadata
    /// The peer's address, for logs.
    package let peer: String
    /// The call's deadline on the monotonic clock (ns), if the client set `grpc-timeout`.
    package let deadline: UInt64?

    private struct Mutable {
        var initialMetadata = Metadata()
        var trailingMetadata = Metadata()
        var compressResponses = false
        var lastRequestCompressed = false
        /// A few a call (the request id, an authenticated account's fields), so a list: hashing
        /// into a dictionary cost more than comparing these short keys.
        var values: [(key: String, value: String)] = []
        var endsWhenServerDrains = false
        /// The call, reached on its loop to end it when its server is draining.
        var call: ServerCallRelay?
    }

    private let mutable = Mutex(Mutable())

    init(path: String, requestMetadata: Metadata, peer: String, deadline: UInt64?) {
        self.path = path
        self.requestMetadata = requestMetadata
        self.peer = peer
        self.deadline = deadline
    }

    /// Metadata sent with the response headers; changes after the first response message are ignored.
    package var initialMetadata: Metadata {
        get { mutable.withLock { $0.initialMetadata } }
        set { mutable.withLock { $0.initialMetadata = newValue } }
    }

    /// Metadata sent with the status trailers.
    package var trailingMetadata: Metadata {
        get { mutable.withLock { $0.trailingMetadata } }
        set { mutable.withLock { $0.trailingMetadata = newValue } }
    }

    /// Compress response messages with gzip when the client accepts it.
    package var compressResponses: Bool {
        get { mutable.withLock { $0.compressResponses } }
        set { mutable.withLock { $0.compressResponses = newValue } }
    }

    /// Whether the most recently received request message was compressed.
    package var lastRequestCompressed: Bool {
        get { mutable.withLock { $0.lastRequestCompressed } }
        set { mutable.withLock { $0.lastRequestCompressed = newValue } }
    }

    /// Ends this call with UNAVAILABLE (reason SERVER_DRAINING) once its server begins a
    /// graceful shutdown, or at once when it already has. For subscriptions that never end by
    /// themselves (a watch, a realtime feed): their clients call again and resume, on another
    /// instance, and the shutdown does not wait out its grace period for them. Other calls keep
    /// the grace period to finish in.
    package func endWhenServerDrains() {
        let relay = mutable.withLock { state in
            state.endsWhenServerDrains = true
            return state.call
        }
        relay?.loop.execute { relay?.call?.endIfServerDraining() }
    }

    /// Set once by the call it belongs to.
    func attach(_ relay: ServerCallRelay) {
        mutable.withLock { $0.call = relay }
    }

    /// Whether the handler asked to end the call when the server drains.
    var endsWhenServerDrains: Bool { mutable.withLock { $0.endsWhenServerDrains } }

    /// Values interceptors attach for handlers (e.g. the authenticated account id).
    package subscript(value key: String) -> String? {
        get { mutable.withLock { state in state.values.first { $0.key == key }?.value } }
        set {
            mutable.withLock { state in
                if let index = state.values.firstIndex(where: { $0.key == key }) {
                    if let newValue { state.values[index].value = newValue } else { state.values.remove(at: index) }
                } else if let newValue {
                    if state.values.isEmpty { state.values.reserveCapacity(8) }
                    state.values.append((key, newValue))
                }
            }
        }
    }
}
