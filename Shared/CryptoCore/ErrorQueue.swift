internal import COpenSSL

/// This thread's OpenSSL error queue, read and emptied in one go.
struct ErrorQueue {
    /// The `ERR_GET_REASON` of each entry, oldest first.
    var reasons: [Int32]
    /// Each entry's `ERR_error_string_n` text, joined with "; ".
    var text: String

    /// Empties the queue. Call `ERR_clear_error()` before an SSL call so this sees only its errors.
    static func drain() -> ErrorQueue {
        var reasons: [Int32] = []
        var messages: [String] = []
        while true {
            let error = ERR_get_error()
            guard error != 0 else { break }
            reasons.append(ERR_GET_REASON(error))
            messages.append(errorString(error))
        }
        let text = messages.isEmpty ? "no OpenSSL error recorded" : messages.joined(separator: "; ")
        return ErrorQueue(reasons: reasons, text: text)
    }

    private static func errorString(_ error: UInt) -> String {
        // 256 bytes is what ERR_error_string documents as enough; _n truncates and terminates.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            // Safe: the buffer is non-empty (capacity 256) and ERR_error_string_n NUL-terminates.
            ERR_error_string_n(error, buffer.baseAddress!, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }
}
