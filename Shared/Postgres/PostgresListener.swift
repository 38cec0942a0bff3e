internal import CLibPQ
internal import Foundation
internal import Glibc
package import Logging
import Synchronization

/// A notification delivered by `LISTEN`/`NOTIFY`.
package struct PostgresNotification: Sendable, Hashable {
    package var channel: String
    package var payload: String

    package init(channel: String, payload: String) {
        self.channel = channel
        self.payload = payload
    }
}

/// Receives `NOTIFY`s on one dedicated connection, driven by its own thread.
///
/// The thread waits in `poll` on the connection's socket and a self-pipe that other threads
/// write to when they queue a command (LISTEN, UNLISTEN, close). When the connection drops it
/// reconnects with jittered exponential backoff, LISTENs again on every channel in use, and
/// yields `.reconnected` to every stream: notifications sent while disconnected are lost, so
/// consumers catch up from durable state (e.g. an outbox cursor) on that signal.
///
/// Call `close()` when done: the thread keeps the listener alive until then.
package final class PostgresListener: Sendable {
    /// What a `listen` stream yields.
    package enum Event: Sendable, Hashable {
        case notification(PostgresNotification)
        /// The listener reconnected; anything sent in the meantime was missed.
        case reconnected
    }

    private enum Command {
        case listen(String, CheckedContinuation<Void, any Error>)
        case unlisten(String)
    }

    private struct Subscription {
        var channel: String
        var continuation: AsyncStream<Event>.Continuation
    }

    private struct State {
        var subscriptions: [Int: Subscription] = [:]
        var commands: [Command] = []
        var nextID = 0
        var isClosed = false

        var channels: Set<String> { Set(subscriptions.values.map(\.channel)) }
    }

    private let configuration: PostgresConfiguration
    private let logger: Logger
    private let state = Mutex(State())
    /// A non-blocking pipe: any thread writes a byte to wake the listener thread out of `poll`.
    private let wakeDescriptor: Int32
    private let wakeWriter: Int32

    package init(configuration: PostgresConfiguration,
                 logger: Logger = Logger(label: "rendezvous.postgres.listener")) {
        self.configuration = configuration
        self.logger = logger
        var pipeEnds: [Int32] = [-1, -1]
        if pipe(&pipeEnds) == 0 {
            for end in pipeEnds {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        self.wakeDescriptor = pipeEnds[0]
        self.wakeWriter = pipeEnds[1]
        let thread = Thread { [self] in self.run() }
        thread.name = "pg-listener"
        thread.stackSize = 512 * 1024
        thread.start()
    }

    deinit {
        // Here, not when the thread ends: a late wake() must never write to a reused descriptor.
        Glibc.close(wakeDescriptor)
        Glibc.close(wakeWriter)
    }

    /// Subscribes to `channel` (exact, case-sensitive name); returns once the server has
    /// confirmed the LISTEN, so every NOTIFY committed afterwards is delivered.
    /// The stream ends when the listener closes; dropping it UNLISTENs when no one else listens.
    package func listen(_ channel: String) async throws -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(4096))
        let id = state.withLock { state -> Int? in
            guard !state.isClosed else { return nil }
            state.nextID += 1
            state.subscriptions[state.nextID] = Subscription(channel: channel, continuation: continuation)
            return state.nextID
        }
        guard let id else { throw PostgresError(code: .connectionClosed) }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        try await withCheckedThrowingContinuation { (confirmed: CheckedContinuation<Void, any Error>) in
            state.withLock { $0.commands.append(.listen(channel, confirmed)) }
            wake()
        }
        return stream
    }

    /// Ends every stream and the connection.
    package func close() {
        state.withLock { $0.isClosed = true }
        wake()
    }

    private func unsubscribe(_ id: Int) {
        state.withLock { state in
            guard let removed = state.subscriptions.removeValue(forKey: id) else { return }
            if !state.channels.contains(removed.channel) { state.commands.append(.unlisten(removed.channel)) }
        }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)  // a full pipe already means: wake up
    }

    // MARK: - The listener thread

    private func run() {
        var connection: OpaquePointer?
        var listened: Set<String> = []
        var wasConnected = false
        var backoff = 0.05
        while !state.withLock({ $0.isClosed }) {
            if connection == nil {
                do {
                    let opened = try LibPQ.open(configuration)
                    connection = opened
                    listened = []
                    for channel in state.withLock({ $0.channels }) {
                        try execute(opened, "LISTEN", channel)
                        listened.insert(channel)
                    }
                    if wasConnected {
                        logger.info("postgres listener reconnected")
                        broadcast(.reconnected)
                    }
                    wasConnected = true
                    backoff = 0.05
                } catch {
                    logger.warning("postgres listener cannot connect", metadata: ["error": "\(error)"])
                    if let broken = connection { PQfinish(broken) }
                    connection = nil
                    waitForWake(orSeconds: backoff * Double.random(in: 0.5..<1.5))
                    backoff = min(backoff * 2, 5)
                    continue
                }
            }
            // Non-nil: set above, or the loop continued.
            let live = connection!
            if !runCommands(on: live, listened: &listened) || !receive(on: live) {
                logger.warning("postgres listener lost its connection")
                PQfinish(live)
                connection = nil
            }
        }
        if let connection { PQfinish(connection) }
        let (subscriptions, commands) = state.withLock { state in
            defer { state.subscriptions = [:]; state.commands = [] }
            return (state.subscriptions, state.commands)
        }
        subscriptions.values.forEach { $0.continuation.finish() }
        for case .listen(_, let confirmed) in commands {
            confirmed.resume(throwing: PostgresError(code: .connectionClosed))
        }
    }

    /// Runs queued commands; false when the connection broke (failed commands are re-queued).
    private func runCommands(on connection: OpaquePointer, listened: inout Set<String>) -> Bool {
        let commands = state.withLock { state in
            defer { state.commands = [] }
            return state.commands
        }
        for (index, command) in commands.enumerated() {
            do {
                switch command {
                case .listen(let channel, let confirmed):
                    if !listened.contains(channel) {
                        try execute(connection, "LISTEN", channel)
                        listened.insert(channel)
                    }
                    confirmed.resume()
                case .unlisten(let channel):
                    if listened.contains(channel), !state.withLock({ $0.channels.contains(channel) }) {
                        try execute(connection, "UNLISTEN", channel)
                        listened.remove(channel)
                    }
                }
            } catch {
                if PQstatus(connection) != CONNECTION_OK {
                    state.withLock { $0.commands.insert(contentsOf: commands[index...], at: 0) }
                    return false
                }
                if case .listen(_, let confirmed) = command { confirmed.resume(throwing: error) }
            }
        }
        deliverNotifications(from: connection)
        return true
    }

    /// Waits for the socket or a wakeup, then reads notifications; false when the connection broke.
    private func receive(on connection: OpaquePointer) -> Bool {
        var descriptors = [pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        guard descriptors[0].fd >= 0 else { return false }
        let ready = poll(&descriptors, 2, 5_000)
        if ready < 0 { return errno == EINTR }
        if descriptors[1].revents != 0 { drainWakeups() }
        if descriptors[0].revents != 0 {
            guard PQconsumeInput(connection) != 0, PQstatus(connection) == CONNECTION_OK else { return false }
            deliverNotifications(from: connection)
        }
        return true
    }

    private func deliverNotifications(from connection: OpaquePointer) {
        while let notify = PQnotifies(connection) {
            let notification = PostgresNotification(channel: String(cString: notify.pointee.relname),
                                                     payload: String(cString: notify.pointee.extra))
            PQfreemem(notify)
            let targets = state.withLock { state in
                state.subscriptions.values.filter { $0.channel == notification.channel }.map(\.continuation)
            }
            targets.forEach { $0.yield(.notification(notification)) }
        }
    }

    private func broadcast(_ event: Event) {
        state.withLock { $0.subscriptions.values.map(\.continuation) }.forEach { $0.yield(event) }
    }

    /// `LISTEN "channel"` or `UNLISTEN "channel"`, the name quoted by libpq.
    private func execute(_ connection: OpaquePointer, _ verb: String, _ channel: String) throws(PostgresError) {
        guard let quoted = PQescapeIdentifier(connection, channel, channel.utf8.count) else {
            throw PostgresError(code: .connectionLost)
        }
        let sql = "\(verb) \(String(cString: quoted))"
        PQfreemem(quoted)
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COMMAND_OK else {
            var error = result.map(LibPQ.error(from:)) ?? PostgresError(code: .connectionLost)
            if PQstatus(connection) != CONNECTION_OK { error.code = .connectionLost }
            throw error
        }
    }

    private func waitForWake(orSeconds seconds: Double) {
        var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, Int32(seconds * 1000)) > 0 { drainWakeups() }
    }

    private func drainWakeups() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeDescriptor, &buffer, buffer.count) > 0 {}
    }
}
