public import Wire

/// A contract's error reason: an enum in a service's .proto whose values carry their gRPC
/// status as the `(rendezvous.options.v1.status)` option. protoc-gen-rendezvous generates the
/// conformers; services throw them (``RPCError/init(_:message:details:)``) and apps switch on them
/// (``RPCError/reason(as:)``) instead of comparing strings.
public protocol ErrorReasonCode: ProtoEnum {
    /// The reason as `ErrorInfo.reason` spells it (`QUOTA_EXCEEDED`); nil for an unknown number.
    var name: String? { get }
    /// The status a call fails with for this reason.
    var statusCode: StatusCode { get }
    /// The reason named `name` on the wire; nil for a name the contract does not know.
    init?(name: String)
}

extension RPCError {
    /// The error for `reason`, with the status code the contract gives it.
    public init<Reason: ErrorReasonCode>(_ reason: Reason, message: String, details: [String: String] = [:]) {
        self.init(code: reason.statusCode, message: message, reason: reason.name, details: details)
    }

    /// The error's reason as `Reason`, or nil when it has none or one `Reason` does not list.
    public func reason<Reason: ErrorReasonCode>(as type: Reason.Type) -> Reason? {
        reason.flatMap { Reason(name: $0) }
    }
}
