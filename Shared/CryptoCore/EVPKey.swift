internal import COpenSSL

/// Owns one OpenSSL `EVP_PKEY`: a private key (with its public half) or a public key alone.
final class EVPKey: @unchecked Sendable {
    // @unchecked Sendable: the key is never modified after construction, and OpenSSL 3
    // documents EVP_PKEY as safe for concurrent read-only use (signing, verifying, encoding);
    // its internal caches take their own locks (openssl-threads(7)).

    /// The `EVP_PKEY*`, valid until `deinit`.
    let pointer: OpaquePointer

    /// Takes ownership of a key reference: `deinit` frees it.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A fresh EC P-256 key pair.
    static func makeP256() throws -> EVPKey {
        EVPKey(taking: try TLSError.unwrap(copenssl_ec_p256_generate(), "EVP_EC_gen(P-256)"))
    }

    /// Reads the first private key from PEM (PKCS#8, SEC1 or PKCS#1); encrypted keys are refused.
    static func read(pem: [UInt8]) throws -> EVPKey {
        let bio = try MemoryBIO(copying: pem)
        ERR_clear_error()
        // Without a callback OpenSSL would prompt on the terminal for a passphrase.
        let key = PEM_read_bio_PrivateKey(bio.pointer, nil, { _, _, _, _ in 0 }, nil)
        return EVPKey(taking: try TLSError.unwrap(key, "PEM_read_bio_PrivateKey"))
    }

    /// Reads the first public key ("PUBLIC KEY", a SubjectPublicKeyInfo) from PEM.
    static func readPublic(pem: [UInt8]) throws -> EVPKey {
        let bio = try CryptoError.translating(.malformed) { try MemoryBIO(copying: pem) }
        ERR_clear_error()
        let key = PEM_read_bio_PUBKEY(bio.pointer, nil, { _, _, _, _ in 0 }, nil)
        return EVPKey(taking: try CryptoError.unwrap(key, "PEM_read_bio_PUBKEY", code: .malformed))
    }

    /// Parses a DER SubjectPublicKeyInfo; OpenSSL checks that an EC point lies on its curve.
    static func read(subjectPublicKeyInfo der: [UInt8]) throws -> EVPKey {
        ERR_clear_error()
        let key = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            // Safe: d2i reads at most `buffer.count` bytes from the start of `buffer` and only
            // advances its local copy of the pointer.
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        return EVPKey(taking: try CryptoError.unwrap(key, "d2i_PUBKEY", code: .malformed))
    }

    /// The key as an unencrypted PKCS#8 PEM block.
    func pemBytes() throws -> [UInt8] {
        let bio = try MemoryBIO()
        let rc = PEM_write_bio_PrivateKey(bio.pointer, self.pointer, nil, nil, 0, nil, nil)
        try TLSError.check(rc, "PEM_write_bio_PrivateKey")
        return bio.contents()
    }

    /// The public half as a DER SubjectPublicKeyInfo.
    func subjectPublicKeyInfo() throws -> [UInt8] {
        ERR_clear_error()
        let length = i2d_PUBKEY(self.pointer, nil)
        guard length > 0 else { throw CryptoError(.libraryFailure, "i2d_PUBKEY: \(ErrorQueue.drain().text)") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            // Safe: the buffer holds the `length` bytes i2d_PUBKEY just said it will write.
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(self.pointer, &cursor)
        }
        guard written == length else { throw CryptoError(.libraryFailure, "i2d_PUBKEY: \(ErrorQueue.drain().text)") }
        return der
    }

    /// Whether this is an EC key on the NIST P-256 curve.
    var isP256: Bool {
        guard EVP_PKEY_is_a(self.pointer, "EC") == 1 else { return false }
        var name = [CChar](repeating: 0, count: 32)
        var length = 0
        let rc = name.withUnsafeMutableBufferPointer { buffer in
            // Safe: OpenSSL writes at most `buffer.count` bytes including the terminating NUL.
            EVP_PKEY_get_group_name(self.pointer, buffer.baseAddress, buffer.count, &length)
        }
        return rc == 1 && String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
    }

    /// Whether this is an RSA key (PKCS#1 `rsaEncryption`, not RSA-PSS-only).
    var isRSA: Bool {
        EVP_PKEY_is_a(self.pointer, "RSA") == 1
    }

    /// The key size in bits (the modulus for RSA, the group order for EC).
    var bits: Int {
        Int(EVP_PKEY_get_bits(self.pointer))
    }

    /// Signs SHA-256 of `message`: a DER ECDSA-Sig-Value for EC, PKCS#1 v1.5 for RSA.
    func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        let context = try DigestContext()
        ERR_clear_error()
        try CryptoError.check(
            EVP_DigestSignInit(context.pointer, nil, EVP_sha256(), nil, self.pointer), "EVP_DigestSignInit")
        var length = 0
        try message.withUnsafeBufferPointer { input in
            try CryptoError.check(
                EVP_DigestSign(context.pointer, nil, &length, input.baseAddress, input.count), "EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        try message.withUnsafeBufferPointer { input in
            try signature.withUnsafeMutableBufferPointer { output in
                // Safe: `output` holds the maximum signature size EVP_DigestSign just reported,
                // and `length` tells it so; it writes back the actual size.
                try CryptoError.check(
                    EVP_DigestSign(context.pointer, output.baseAddress, &length, input.baseAddress, input.count),
                    "EVP_DigestSign")
            }
        }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` is a valid signature of SHA-256 of `message` under this key
    /// (DER ECDSA-Sig-Value for EC, PKCS#1 v1.5 for RSA). Never throws: any failure is "no".
    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let context = try? DigestContext() else { return false }
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard EVP_DigestVerifyInit(context.pointer, nil, EVP_sha256(), nil, self.pointer) == 1 else { return false }
        let rc = signature.withUnsafeBufferPointer { signatureBuffer in
            message.withUnsafeBufferPointer { input in
                // Safe: each buffer is passed with its own count.
                EVP_DigestVerify(context.pointer, signatureBuffer.baseAddress, signatureBuffer.count,
                                 input.baseAddress, input.count)
            }
        }
        return rc == 1
    }

    deinit {
        EVP_PKEY_free(self.pointer)
    }
}
