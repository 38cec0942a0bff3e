extension RPCError {
    /// The status a call's trailers state: `grpc-status`, the percent-encoded `grpc-message`,
    /// the ErrorInfo in `grpc-status-details-bin`, and the rest as trailing metadata. INTERNAL
    /// when `grpc-status` is missing or not a number. Names must be lowercase.
    package init(trailerFields fields: [(name: String, value: String)]) {
        func first(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        if let codeText = first("grpc-status"), let code = Int(codeText) {
            self.init(code: StatusCode(rawValue: code), message: PercentEncoding.decode(first("grpc-message") ?? ""))
            if let details = first("grpc-status-details-bin"), let bytes = Base64.decode(details) {
                applyStatusDetails(bytes)
            }
        } else {
            self.init(code: .internal, message: "missing grpc-status")
        }
        trailers = Metadata(headerFields: fields)
    }
}
