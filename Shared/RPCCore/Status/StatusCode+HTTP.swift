extension StatusCode {
    /// The status of a response whose HTTP status is not 200 (gRPC spec,
    /// doc/http-grpc-status-mapping.md).
    package init(httpStatus: Int) {
        switch httpStatus {
        case 400: self = .internal
        case 401: self = .unauthenticated
        case 403: self = .permissionDenied
        case 404: self = .unimplemented
        case 429, 502, 503, 504: self = .unavailable
        default: self = .unknown
        }
    }
}
