/// gRPC status codes by number, as `RPC.StatusCode`'s static members are named.
enum StatusCodeNames {
    static let byNumber: [Int32: String] = [
        0: "ok", 1: "cancelled", 2: "unknown", 3: "invalidArgument", 4: "deadlineExceeded", 5: "notFound",
        6: "alreadyExists", 7: "permissionDenied", 8: "resourceExhausted", 9: "failedPrecondition",
        10: "aborted", 11: "outOfRange", 12: "unimplemented", 13: "`internal`", 14: "unavailable",
        15: "dataLoss", 16: "unauthenticated",
    ]
}
