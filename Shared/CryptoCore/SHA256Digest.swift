internal import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL.
package enum SHA256Digest {
    /// The 32-byte SHA-256 digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        let rc = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                // Safe: `output` holds SHA256_DIGEST_LENGTH bytes, exactly what SHA-256 writes.
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest with the built-in SHA-256 fails only if allocation fails; nothing to recover.
        precondition(rc == 1 && length == SHA256_DIGEST_LENGTH, "EVP_Digest(SHA-256) failed")
        return digest
    }
}
