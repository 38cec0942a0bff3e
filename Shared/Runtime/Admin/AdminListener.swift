#if canImport(Glibc)
import Glibc
internal import CLinux
#endif
import HTTP2
import IOLoop

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
