/// Limits and timeouts of HTTP/2 connections, server or client.
package struct HTTP2Configuration: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS we advertise; nghttp2 refuses streams beyond it.
    package var maxConcurrentStreams: UInt32 = 100
    /// SETTINGS_INITIAL_WINDOW_SIZE we advertise: how much a peer may send on one stream before
    /// the receiver consumes it.
    package var initialStreamWindow: Int32 = 1 << 20
    /// Our connection-level receive window.
    package var connectionWindow: Int32 = 16 << 20
    /// SETTINGS_MAX_HEADER_LIST_SIZE, also enforced on receipt (the stream is reset).
    package var maxHeaderListSize: UInt32 = 16 << 10
    /// Connections a server accepts at once; more are closed at accept.
    package var maxConnections: Int = 10_000
    /// Time a new connection has to finish TLS and send its preface.
    package var handshakeTimeout: Duration = .seconds(10)
    /// A connection with no open stream for this long is sent GOAWAY and closed.
    package var idleTimeout: Duration = .seconds(300)
    /// A connection whose peer takes no bytes for this long while we have some to send is closed.
    package var writeStallTimeout: Duration = .seconds(30)
    /// After this long without receiving anything, send a PING; close if unanswered after `keepaliveTimeout`.
    package var keepaliveInterval: Duration = .seconds(60)
    package var keepaliveTimeout: Duration = .seconds(20)
    /// RST_STREAM frames a peer may send: a burst, then a rate per second (nghttp2's limiter).
    package var streamResetBurst: UInt64 = 1000
    package var streamResetRate: UInt64 = 33

    package init() {}
}
