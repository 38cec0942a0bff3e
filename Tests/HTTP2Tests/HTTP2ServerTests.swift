import Testing

/// Hostile peers and flow control against a live `RPCServer` over loopback sockets.
///
/// Serialized (nested suites included): several tests measure the process's RSS and time how
/// long the server takes to close a connection, which parallel tests would blur.
@Suite(.serialized)
struct HTTP2ServerTests {}
