/// An RPC's failure as it travels on the wire: a status code, a user-facing message, and a
/// machine-readable reason carried as a google.rpc.ErrorInfo in `grpc-status-details-bin`.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: StatusCode
    /// Safe to show to a user; goes in `grpc-message`.
    public var message: String
    /// ErrorInfo.reason, e.g. `SESSION_FULL`; nil when the error has none.
    public var reason: String?
    /// ErrorInfo.domain.
    public var domain: String
    /// ErrorInfo.metadata.
    public var details: [String: String]
    /// Trailing metadata that came with the status (client side) or goes with it (server side).
    public var trailers: Metadata
    /// The W3C trace id (32 hex digits) of the failed call, when the client knows it (the
    /// gateway client sets it): what a bug report should name, to find the call's logs and spans.
    public var traceID: String?

    public init(code: StatusCode, message: String, reason: String? = nil, domain: String = "rendezvous",
                details: [String: String] = [:], trailers: Metadata = Metadata()) {
        self.code = code
        self.message = message
        self.reason = reason
        self.domain = domain
        self.details = details
        self.trailers = trailers
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let reason { text += " [\(reason)]" }
        if let traceID { text += " (trace \(traceID))" }
        return text
    }
}

/// A domain error that knows its gRPC status. Handlers throw these; the server turns anything
/// else into INTERNAL without revealing it.
public protocol RPCErrorConvertible: Error {
    var rpcError: RPCError { get }
}

extension RPCError: RPCErrorConvertible {
    public var rpcError: RPCError { self }
}
