internal import COpenSSL

/// HMAC-SHA-256 (RFC 2104, FIPS 198-1) through OpenSSL.
package enum HMACSHA256 {
    /// The 32-byte HMAC-SHA-256 of `message` under `key`; compare tags with `ConstantTime.equals`.
    package static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        // HMAC() takes the key length as an Int32; no caller holds a key of 2 GiB.
        precondition(key.count <= Int(Int32.max), "HMAC key too long")
        var tag = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        // OpenSSL refuses a NULL key even with length 0,
        // so an empty key is passed as a pointer to one unused byte.
        let keyBytes = key.isEmpty ? [0] : key
        let result = keyBytes.withUnsafeBytes { keyBuffer in
            message.withUnsafeBytes { input in
                tag.withUnsafeMutableBufferPointer { output in
                    // Safe: `output` holds SHA256_DIGEST_LENGTH bytes, exactly what HMAC-SHA-256
                    // writes; `keyBuffer` holds at least `key.count` bytes.
                    HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(key.count),
                         input.baseAddress, input.count, output.baseAddress, &length)
                }
            }
        }
        // HMAC with the built-in SHA-256 fails only if allocation fails; nothing to recover.
        precondition(result != nil && length == SHA256_DIGEST_LENGTH, "HMAC(SHA-256) failed")
        return tag
    }
}
