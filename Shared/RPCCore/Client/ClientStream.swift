/// One call as a transport carries it: serialized request messages out, serialized response
/// messages in, then the status. ``StreamingCall`` types it; the transports (RPC's HTTP/2
/// `ClientCall`, the gateway client's gRPC-Web call) implement it.
package protocol ClientStream: Sendable {
    /// The largest response message accepted, in bytes.
    var maxReceiveMessageSize: Int { get }

    /// The response headers' metadata (empty until they arrive).
    var initialMetadata: Metadata { get }

    /// Sends one serialized request message, half-closing the request after it when `end`;
    /// returns when the transport can take more.
    func send(_ message: [UInt8], end: Bool) async throws

    /// Half-closes the request side.
    func finishSending()

    /// Ends the call: the server sees it cancelled, the caller CANCELLED.
    func cancel()

    /// Waits for the call's final status; `.ok` on success.
    func status() async -> RPCError

    /// The next serialized response message; nil at the end of the responses (then `status()`
    /// tells how the call ended). Throws the status of a call that failed.
    func next() async throws -> [UInt8]?

    /// The next response message if one has already arrived, without waiting.
    func nextIfReceived() -> [UInt8]?
}
