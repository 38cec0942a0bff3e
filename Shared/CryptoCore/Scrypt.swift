internal import COpenSSL

/// The scrypt key-derivation function (RFC 7914) through OpenSSL's `EVP_PBE_scrypt`.
package enum Scrypt {
    /// The largest output we derive; scrypt allows more, nothing here needs it.
    package static let maximumLength = 1024

    /// Derives `length` bytes from `password` and `salt` with cost `n` (a power of two above 1),
    /// block size `r` and parallelism `p`.
    ///
    /// Memory use is about 128·r·(n + p) bytes; OpenSSL is told to allow exactly that much, so
    /// bound the parameters before calling with values from outside (see `PasswordHash`).
    /// Throws `.invalidParameters` for out-of-range parameters.
    package static func derive(
        password: [UInt8], salt: [UInt8], n: UInt64, r: UInt32, p: UInt32, length: Int
    ) throws -> [UInt8] {
        guard n > 1, n & (n - 1) == 0 else {
            throw CryptoError(.invalidParameters, "scrypt: N must be a power of two above 1")
        }
        guard r > 0, p > 0, (1...maximumLength).contains(length) else {
            throw CryptoError(.invalidParameters, "scrypt: r, p and length must be positive and bounded")
        }
        let memory = try requiredMemory(n: n, r: r, p: p)
        var key = [UInt8](repeating: 0, count: length)
        let rc = password.withUnsafeBytes { passwordBuffer in
            salt.withUnsafeBytes { saltBuffer in
                key.withUnsafeMutableBufferPointer { output in
                    // Safe: each buffer is passed with its own count; `output` holds `length`
                    // bytes. OpenSSL treats a NULL pointer with length 0 as empty input.
                    EVP_PBE_scrypt(
                        passwordBuffer.baseAddress?.assumingMemoryBound(to: CChar.self), passwordBuffer.count,
                        saltBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), saltBuffer.count,
                        n, UInt64(r), UInt64(p), memory, output.baseAddress, output.count)
                }
            }
        }
        try CryptoError.check(rc, "EVP_PBE_scrypt", code: .invalidParameters)
        return key
    }

    /// 128·r·(n + p + 2) bytes plus a page of slack: what OpenSSL's scrypt allocates (B, X, V
    /// and T), checked for overflow.
    static func requiredMemory(n: UInt64, r: UInt32, p: UInt32) throws -> UInt64 {
        let blocks = n.addingReportingOverflow(UInt64(p) + 2)
        let perBlock = UInt64(r).multipliedReportingOverflow(by: 128)
        let total = blocks.partialValue.multipliedReportingOverflow(by: perBlock.partialValue)
        guard !blocks.overflow, !perBlock.overflow, !total.overflow, total.partialValue < UInt64.max - 4096 else {
            throw CryptoError(.invalidParameters, "scrypt: parameters need more memory than addressable")
        }
        return total.partialValue + 4096
    }
}
