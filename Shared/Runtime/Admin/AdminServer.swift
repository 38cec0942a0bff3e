#if canImport(Glibc)
import Glibc
internal import CLinux
#endif
import HTTP2
import Synchronization

/// The HTTP/1.1 admin listener (Prometheus scrapes, container probes) on its own port and its
/// own event loop, so a busy gRPC server cannot starve the probes.
///
/// Bounded by design: at most `maxConnections` at once, a request head of at most 8 KiB read
/// within `readTimeout`, one request per connection, closed after the response.
package final class AdminServer: Sendable {
    package let host: String
    private let requestedPort: Int
    private let routes: AdminRoutes
    private let loop: EventLoop
    private let boundPort = Atomic<Int>(0)
    private let listener = Mutex<AdminListener?>(nil)
    package let maxConnections: Int
    package let readTimeout: Duration

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

/// Accepts connections on the admin loop. Loop only.
final class AdminListener: EventLoopHandler, @unchecked Sendable {
    // @unchecked Sendable: created off-loop, then touched only on `loop`.
    let fd: Int32
    let loop: EventLoop
    let routes: AdminRoutes
    let maxConnections: Int
    let readTimeout: Duration
    private var connections: [ObjectIdentifier: AdminConnection] = [:]
    private var open = false

    init(fd: Int32, loop: EventLoop, routes: AdminRoutes, maxConnections: Int, readTimeout: Duration) {
        self.fd = fd
        self.loop = loop
        self.routes = routes
        self.maxConnections = maxConnections
        self.readTimeout = readTimeout
    }

    func start() {
        do {
            try loop.register(fd: fd, events: EPOLLIN.rawValue, handler: self)
            open = true
        } catch {
            Glibc.close(fd)
        }
    }

    func handleEvents(_ events: UInt32) {
        guard open else { return }
        for _ in 0..<16 {
            guard let client = try? Socket.accept(fd) else { return }
            guard connections.count < maxConnections else {
                Glibc.close(client)
                continue
            }
            let connection = AdminConnection(fd: client, loop: loop, routes: routes, readTimeout: readTimeout)
            let id = ObjectIdentifier(connection)
            connection.onClose = { [unowned self] in self.connections[id] = nil }
            connections[id] = connection
            connection.start()
        }
    }

    func close() {
        if open {
            open = false
            loop.deregister(fd: fd)
            Glibc.close(fd)
        }
        for connection in Array(connections.values) { connection.close() }
    }
}
