import HTTP2
import IOLoop
import Synchronization

/// The HTTP/1.1 admin listener (Prometheus scrapes, container probes) on its own port and its
/// own event loop, so a busy gRPC server cannot starve the probes.
///
/// Bounded by design: at most `maxConnections` at once, a request head of at most 8 KiB read
/// within `readTimeout`, one request per connection, closed after the response.
package final class AdminServer: Sendable {
    /// The address the listener binds.
    package let host: String
    private let requestedPort: Int
    private let routes: AdminRoutes
    private let loop: EventLoop
    private let boundPort = Atomic<Int>(0)
    private let listener = Mutex<AdminListener?>(nil)
    /// Connections served at once; more are closed on accept.
    package let maxConnections: Int
    /// How long a client may take to send its request head.
    package let readTimeout: Duration

    /// Creates the listener and its event loop thread; nothing is bound until `start`.
    package init(host: String, port: Int, routes: AdminRoutes, maxConnections: Int = 64,
                 readTimeout: Duration = .seconds(5)) throws {
        self.host = host
        self.requestedPort = port
        self.routes = routes
        self.maxConnections = maxConnections
        self.readTimeout = readTimeout
        self.loop = try EventLoop(name: "rv-admin")
    }

    /// The bound port (after `start`).
    package var port: Int { boundPort.load(ordering: .relaxed) }

    /// Binds and starts accepting; returns the bound port.
    @discardableResult
    package func start() throws -> Int {
        let (fd, port) = try Socket.listen(host: host, port: requestedPort, backlog: 128, reusePort: false)
        boundPort.store(port, ordering: .relaxed)
        let listener = AdminListener(fd: fd, loop: loop, routes: routes, maxConnections: maxConnections,
                                     readTimeout: readTimeout)
        self.listener.withLock { $0 = listener }
        loop.execute { listener.start() }
        return port
    }

    /// Stops accepting, closes open connections and ends the loop's thread.
    package func shutdown() async {
        let listener = self.listener.withLock { current -> AdminListener? in
            defer { current = nil }
            return current
        }
        let loop = self.loop
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute {
                listener?.close()
                continuation.resume()
            }
        }
        loop.stop()
    }
}
