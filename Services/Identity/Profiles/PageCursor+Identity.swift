import Runtime

extension PageCursor {
    /// The cursor in `token`; nil for an empty token, INVALID_ARGUMENT `INVALID_PAGE_TOKEN`
    /// for anything that is not one of ours.
    static func parse(_ token: String) throws(PagingError) -> PageCursor? {
        try parse(token, invalid: PagingError.invalidPageToken)
    }

    /// Rows per page: 0 means `defaultSize`, larger than `maximumSize` is cut to it, negative is
    /// INVALID_ARGUMENT `INVALID_PAGE_SIZE` (AIP-158).
    static func pageSize(_ requested: Int32, defaultSize: Int = 50, maximumSize: Int = 200) throws(PagingError) -> Int {
        try pageSize(requested, defaultSize: defaultSize, maximumSize: maximumSize, invalid: PagingError.invalidPageSize)
    }
}
