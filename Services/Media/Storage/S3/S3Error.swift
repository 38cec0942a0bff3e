import RPC

/// A failure of the S3-compatible store. Callers see `STORAGE_UNAVAILABLE`; the description
/// (for logs and readiness) names the status and S3's error code, never a key, a URL's
/// signature or a credential.
struct S3Error: Error, CustomStringConvertible, RPCErrorConvertible {
    enum Kind: Equatable {
        /// No answer after the retries: refused connection, timeout, 5xx, 429.
        case unreachable(String)
        /// The store answered with an error that retrying will not change, e.g. 403
        /// SignatureDoesNotMatch (a wrong secret key) or 404 NoSuchBucket.
        case rejected(status: Int, code: String)
        /// The store answered something we cannot read.
        case malformed(String)
    }

    var kind: Kind
    /// What was being done, e.g. "PUT object".
    var operation: String

    var description: String {
        switch kind {
        case .unreachable(let why): "\(operation): the store cannot be reached (\(why))"
        case .rejected(let status, let code): "\(operation): the store refused (HTTP \(status) \(code))"
        case .malformed(let why): "\(operation): unexpected answer (\(why))"
        }
    }

    var rpcError: RPCError { MediaError.storageUnavailable(detail: description).rpcError }
}
