internal import COpenSSL

/// An incremental SHA-256 (FIPS 180-4): feed bytes as they arrive, then `finalize` once. Owns
/// one `EVP_MD_CTX`; not shared between threads.
package final class SHA256Hasher {
    private let context: DigestContext
    private var finished = false

    /// A fresh digest.
    package init() throws {
        context = try DigestContext()
        try CryptoError.check(EVP_DigestInit_ex(context.pointer, EVP_sha256(), nil), "EVP_DigestInit_ex")
    }

    /// Adds `bytes` to the digest.
    package func update(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "SHA256Hasher used after finalize")
        guard bytes.count > 0 else { return }
        try CryptoError.check(EVP_DigestUpdate(context.pointer, bytes.baseAddress, bytes.count), "EVP_DigestUpdate")
    }

    /// Adds `bytes` to the digest.
    package func update(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try update($0) }
    }

    /// The 32-byte digest of everything added; the hasher is spent afterwards.
    package func finalize() throws -> [UInt8] {
        precondition(!finished, "SHA256Hasher finalized twice")
        finished = true
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        // Safe: `digest` holds SHA256_DIGEST_LENGTH bytes, exactly what SHA-256 writes.
        try CryptoError.check(digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context.pointer, $0.baseAddress, &length) },
                              "EVP_DigestFinal_ex")
        return digest
    }
}
