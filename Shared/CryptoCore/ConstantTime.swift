internal import COpenSSL

/// Comparisons whose running time does not depend on where inputs differ.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, in time that depends only on their lengths.
    ///
    /// Lengths are compared first and are not secret (a hash or MAC has a fixed length).
    package static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                // Safe: both buffers are non-empty and hold exactly `a.count` bytes.
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0
            }
        }
    }
}
