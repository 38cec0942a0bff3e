extension RPCError {
    /// Most UTF-8 bytes of the message a server sends (`grpc-message`, and google.rpc.Status's
    /// message in `grpc-status-details-bin`): percent-encoded, at most three times as many.
    package static let maximumMessageBytes = 1024
    /// Most UTF-8 bytes of one ErrorInfo metadata key or value a server sends.
    package static let maximumDetailBytes = 256
    /// Most UTF-8 bytes of all ErrorInfo metadata keys and values together; entries past it
    /// (in key order) are left out.
    package static let maximumDetailsBytes = 2048
    /// Ends a message or value that was cut.
    package static let truncationMarker = "…(truncated)"

    /// This status as a server sends it: message and ErrorInfo metadata cut to the limits above,
    /// so that both headers stay far below a client's header list limit (grpcio's 16 KiB,
    /// 8 KiB in some proxies) whatever a handler put in them, a client's own input included.
    package var bounded: RPCError {
        var status = self
        status.message = Self.truncate(message, toUTF8Bytes: Self.maximumMessageBytes)
        var budget = Self.maximumDetailsBytes
        var details: [String: String] = [:]
        for (key, value) in self.details.sorted(by: { $0.key < $1.key }) {
            let key = Self.truncate(key, toUTF8Bytes: Self.maximumDetailBytes)
            let value = Self.truncate(value, toUTF8Bytes: Self.maximumDetailBytes)
            let size = key.utf8.count + value.utf8.count
            guard size <= budget else { break }
            budget -= size
            details[key] = value
        }
        status.details = details
        return status
    }

    /// `text` when it has at most `limit` UTF-8 bytes; otherwise its longest prefix of whole
    /// characters that fits with the marker after it.
    package static func truncate(_ text: String, toUTF8Bytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let room = limit - truncationMarker.utf8.count
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            let size = text.utf8.distance(from: index, to: next)
            guard used + size <= room else { break }
            used += size
            end = next
        }
        return String(text[..<end]) + truncationMarker
    }
}
