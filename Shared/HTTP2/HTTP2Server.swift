#if canImport(Glibc)
import Glibc
internal import CLinux
#endif
import Synchronization
package import IOLoop

/// An HTTP/2 server: one listening socket per event loop (SO_REUSEPORT), connections served on
/// the loop that accepted them.
package final class HTTP2Server: Sendable {
    package let host: String
    package let configuration: HTTP2Configuration
    private let group: EventLoopGroup
    private let handler: any HTTP2ServerStreamHandler
    private let security: TransportSecurity
    private let listeners = Mutex<[Listener]>([])
    private let connectionCount = Atomic<Int>(0)
    private let boundPort = Atomic<Int>(0)

    package init(host: String = "127.0.0.1", port: Int, group: EventLoopGroup,
                 security: TransportSecurity = .plaintext,
                 configuration: HTTP2Configuration = HTTP2Configuration(),
                 handler: any HTTP2ServerStreamHandler) {
        self.host = host
        self.boundPort.store(port, ordering: .relaxed)
        self.group = group
        self.security = security
        self.configuration = configuration
        self.handler = handler
    }

    /// The port accepting connections (useful after binding port 0).
    package var port: Int { boundPort.load(ordering: .relaxed) }

    /// Byte counts across this server's connections.
    package let counters = HTTP2Counters()

    /// Connections currently open.
    package var openConnections: Int { connectionCount.load(ordering: .relaxed) }

    /// Binds and starts accepting on every loop.
    package func start() throws {
        signal(SIGPIPE, SIG_IGN)
        var port = boundPort.load(ordering: .relaxed)
        var created: [Listener] = []
        do {
            for loop in group.loops {
                let (fd, actual) = try Socket.listen(host: host, port: port, reusePort: true)
                port = actual
                created.append(Listener(server: self, loop: loop, fd: fd))
            }
        } catch {
            for listener in created { Glibc.close(listener.fd) }
            throw error
        }
        boundPort.store(port, ordering: .relaxed)
        listeners.withLock { $0 = created }
        for listener in created {
            listener.loop.execute { listener.start() }
        }
    }

    /// Stops accepting, sends GOAWAY on every connection, waits up to `gracePeriod` for open
    /// streams to finish, then closes whatever is left.
    package func shutdown(gracePeriod: Duration) async {
        let current = listeners.withLock { $0 }
        // First every loop stops accepting, then GOAWAY goes out: otherwise a client could see
        // GOAWAY on one connection and still get a new one accepted by another loop.
        await withTaskGroup(of: Void.self) { group in
            for listener in current {
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        listener.loop.execute {
                            listener.stopAccepting()
                            continuation.resume()
                        }
                    }
                }
            }
        }
        for listener in current {
            listener.loop.execute { listener.drain() }
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: gracePeriod)
        // A cancelled caller skips the rest of the grace period (its sleeps would not wait).
        while openConnections > 0 && clock.now < deadline && !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for listener in current {
            listener.loop.execute { listener.closeAll() }
        }
        // Closing runs on the loops at once; wait for it, boundedly even when cancelled.
        let closeDeadline = clock.now.advanced(by: .seconds(5))
        while openConnections > 0 && clock.now < closeDeadline {
            if Task.isCancelled {
                await Task.yield()
            } else {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    deinit {
        // Dropped without `shutdown`: stop accepting and close what is still open, so no
        // socket (or listener still registered with a loop) outlives the server.
        for listener in listeners.withLock({ $0 }) {
            listener.loop.execute {
                listener.stopAcceptingAndDrain()
                listener.closeAll()
            }
        }
    }

    fileprivate func admitConnection() -> Bool {
        let count = connectionCount.add(1, ordering: .relaxed).newValue
        if count > configuration.maxConnections {
            connectionCount.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    fileprivate func connectionClosed() {
        connectionCount.subtract(1, ordering: .relaxed)
    }

    fileprivate func makeTransport(fd: Int32) throws -> any ByteTransport {
        try security.makeServerTransport(fd: fd)
    }

    fileprivate var streamHandler: any HTTP2ServerStreamHandler { handler }
}

/// Accepts connections on one loop and tracks the ones it accepted.
private final class Listener: EventLoopHandler, @unchecked Sendable {
    // @unchecked Sendable: created on one thread, then used only on `loop`.
    let loop: EventLoop
    let fd: Int32
    /// Weak: connections may close after the server is gone (see `HTTP2Server.deinit`).
    weak var server: HTTP2Server?
    private var connections: [ObjectIdentifier: HTTP2Connection] = [:]
    private var accepting = false
    private var draining = false

    init(server: HTTP2Server, loop: EventLoop, fd: Int32) {
        self.server = server
        self.loop = loop
        self.fd = fd
    }

    func start() {
        do {
            try loop.register(fd: fd, events: EPOLLIN.rawValue, handler: self)
            accepting = true
        } catch {
            Glibc.close(fd)
        }
    }

    package func handleEvents(_ events: UInt32) {
        guard accepting, let server else { return }
        // Bounded so a connection storm cannot starve the streams already being served.
        for _ in 0..<64 {
            let accepted: Int32?
            do {
                accepted = try Socket.accept(fd)
            } catch {
                return
            }
            guard let client = accepted else { return }
            guard server.admitConnection() else {
                Glibc.close(client)
                continue
            }
            do {
                let transport = try server.makeTransport(fd: client)
                let connection = HTTP2Connection(loop: loop, fd: client, transport: transport,
                                                 role: .server(server.streamHandler),
                                                 configuration: server.configuration)
                connection.counters = server.counters
                let id = ObjectIdentifier(connection)
                connection.onClose = { [weak self] in
                    self?.connections[id] = nil
                    self?.server?.connectionClosed()
                }
                connections[id] = connection
                try connection.start()
            } catch {
                Glibc.close(client)
                server.connectionClosed()
            }
        }
    }

    func stopAccepting() {
        guard accepting else { return }
        accepting = false
        loop.deregister(fd: fd)
        Glibc.close(fd)
    }

    func drain() {
        draining = true
        for connection in connections.values { connection.beginGracefulShutdown() }
    }

    func stopAcceptingAndDrain() {
        stopAccepting()
        drain()
    }

    func closeAll() {
        for connection in Array(connections.values) { connection.close(reason: "server shutdown") }
    }
}
