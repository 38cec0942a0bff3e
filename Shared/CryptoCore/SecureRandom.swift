internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's CSPRNG.
package enum SecureRandom {
    /// `n` random bytes, suitable for keys, tokens and nonces.
    package static func bytes(_ n: Int) -> [UInt8] {
        precondition(n >= 0 && n <= Int(Int32.max), "SecureRandom.bytes: count out of range")
        var bytes = [UInt8](repeating: 0, count: n)
        guard n > 0 else { return bytes }
        let rc = bytes.withUnsafeMutableBufferPointer { buffer in
            // Safe: `buffer` holds exactly n bytes and n fits in Int32 (checked above).
            RAND_bytes(buffer.baseAddress, Int32(n))
        }
        // An unseeded CSPRNG must never hand out predictable bytes; stopping is the only safe answer.
        precondition(rc == 1, "RAND_bytes failed: \(ErrorQueue.drain().text)")
        return bytes
    }
}
