#if canImport(Glibc)
import Glibc
#endif
import Dispatch
package import IOLoop

/// Opens client HTTP/2 connections.
package enum HTTP2Client {
    /// Connects to `host:port` on `loop` and waits until the connection is ready for streams.
    package static func connect(host: String, port: Int, loop: EventLoop,
                                security: TransportSecurity = .plaintext,
                                configuration: HTTP2Configuration = HTTP2Configuration()) async throws -> HTTP2Connection {
        // A name goes to the resolver, which may block: not on this (shared, cooperative) thread.
        let fd = HostResolver.needsLookup(host)
            ? try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                DispatchQueue.global().async { continuation.resume(with: Result { try Socket.connect(host: host, port: port) }) }
            }
            : try Socket.connect(host: host, port: port)
        let transport: any ByteTransport
        do {
            transport = try security.makeClientTransport(fd: fd, serverName: host)
        } catch {
            _ = close(fd)
            throw error
        }
        let connection = HTTP2Connection(loop: loop, fd: fd, transport: transport, role: .client,
                                          configuration: configuration)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            loop.execute {
                connection.onActive = { failure in
                    if let failure {
                        continuation.resume(throwing: HTTP2ConnectError(reason: failure))
                    } else {
                        continuation.resume()
                    }
                }
                do {
                    try connection.start()
                } catch {
                    connection.onActive = nil
                    connection.close(reason: "register failed")
                    continuation.resume(throwing: error)
                }
            }
        }
        return connection
    }
}

/// A client connection that could not be established.
package struct HTTP2ConnectError: Error, CustomStringConvertible {
    package var reason: String
    package var description: String { "connection failed: \(reason)" }
}

extension HTTP2Connection {
    /// Creates a client stream whose inbound events go to `delegate`; its first `send(headers:)`
    /// submits the request. Any thread.
    package func makeStream(delegate: any HTTP2StreamDelegate) -> HTTP2Stream {
        let stream = HTTP2Stream(connection: self, id: 0)
        stream.delegate = delegate
        return stream
    }

    /// Starts a graceful close (GOAWAY) from any thread.
    package func shutdownSoon() {
        loop.executeSoon { self.beginGracefulShutdown() }
    }

    /// Closes at once from any thread.
    package func closeSoon() {
        loop.executeSoon { self.close(reason: "closed by owner") }
    }
}
