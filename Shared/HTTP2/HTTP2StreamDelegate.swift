/// Receives one stream's inbound events, on the stream's event loop.
package protocol HTTP2StreamDelegate: AnyObject {
    /// A HEADERS block after the first one (trailers), or the response head on a client stream.
    func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool)
    /// A chunk of DATA payload. The bytes are valid only during the call; the receiver calls
    /// `HTTP2Stream.consume` once it has taken them, which reopens the flow-control window.
    func didReceiveData(_ bytes: UnsafeRawBufferPointer)
    /// The peer half-closed the stream (END_STREAM).
    func didReceiveEnd()
    /// The stream is gone: `errorCode` 0 after a normal close, the RST_STREAM or GOAWAY code otherwise.
    func didClose(errorCode: UInt32)
    /// This server began a graceful shutdown of the stream's connection (GOAWAY is out): the
    /// stream may still finish, within the grace period. Loop only; nothing by default.
    func serverDraining()
}

extension HTTP2StreamDelegate {
    package func serverDraining() {}
}

/// Accepts the streams a server connection receives.
package protocol HTTP2ServerStreamHandler: Sendable {
    /// Called on the stream's loop once a request's header block is complete. The returned
    /// delegate receives the rest of the stream (`didReceiveEnd` follows at once when the
    /// HEADERS frame carried END_STREAM).
    func openStream(_ stream: HTTP2Stream, headers: [HTTP2Header]) -> any HTTP2StreamDelegate
}

/// HTTP/2 error codes (RFC 9113 §7).
package enum HTTP2ErrorCode {
    package static let noError: UInt32 = 0x0
    package static let protocolError: UInt32 = 0x1
    package static let internalError: UInt32 = 0x2
    package static let flowControlError: UInt32 = 0x3
    package static let refusedStream: UInt32 = 0x7
    package static let cancel: UInt32 = 0x8
    package static let enhanceYourCalm: UInt32 = 0xb
}
