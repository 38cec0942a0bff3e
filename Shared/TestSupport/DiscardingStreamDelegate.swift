package import HTTP2

/// The rest of a stream that a test server answered in `openStream`: whatever the client
/// still sends is taken and dropped (its flow-control window reopened).
package final class DiscardingStreamDelegate: HTTP2StreamDelegate {
    package let stream: HTTP2Stream

    package init(stream: HTTP2Stream) { self.stream = stream }

    package func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {}
    package func didReceiveData(_ bytes: UnsafeRawBufferPointer) { stream.consume(bytes.count) }
    package func didReceiveEnd() {}
    package func didClose(errorCode: UInt32) {}
}
