internal import COpenSSL

/// Owns one OpenSSL `EVP_PKEY` (a private key, or a key pair).
final class PrivateKey {
    /// The `EVP_PKEY*`, valid until `deinit`.
    let pointer: OpaquePointer

    /// Takes ownership of a key reference: `deinit` frees it.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A fresh EC P-256 key pair.
    static func makeP256() throws -> PrivateKey {
        PrivateKey(taking: try TLSError.unwrap(copenssl_ec_p256_generate(), "EVP_EC_gen(P-256)"))
    }

    /// Reads the first private key from PEM (PKCS#8, SEC1 or PKCS#1); encrypted keys are refused.
    static func read(pem: [UInt8]) throws -> PrivateKey {
        let bio = try MemoryBIO(copying: pem)
        ERR_clear_error()
        // Without a callback OpenSSL would prompt on the terminal for a passphrase.
        let key = PEM_read_bio_PrivateKey(bio.pointer, nil, { _, _, _, _ in 0 }, nil)
        return PrivateKey(taking: try TLSError.unwrap(key, "PEM_read_bio_PrivateKey"))
    }

    /// The key as an unencrypted PKCS#8 PEM block.
    func pemBytes() throws -> [UInt8] {
        let bio = try MemoryBIO()
        let rc = PEM_write_bio_PrivateKey(bio.pointer, self.pointer, nil, nil, 0, nil, nil)
        try TLSError.check(rc, "PEM_write_bio_PrivateKey")
        return bio.contents()
    }

    deinit {
        EVP_PKEY_free(self.pointer)
    }
}
