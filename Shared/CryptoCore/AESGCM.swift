internal import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) through OpenSSL: sealing secrets at rest, such as Identity's
/// signing keys under its key-encryption key.
///
/// A sealed box is `nonce (12) ‖ ciphertext ‖ tag (16)`; the nonce is random per seal, so one
/// key may seal up to about 2^32 messages.
package enum AESGCM {
    /// Key length in bytes.
    package static let keyLength = 32
    static let nonceLength = 12
    static let tagLength = 16

    /// Encrypts and authenticates `plaintext`, binding `associatedData` (authenticated, not
    /// encrypted: e.g. the key ID the secret belongs to).
    package static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(nonceLength), associatedData: associatedData)
    }

    /// `seal` with a given nonce, for known-answer tests; a nonce must never repeat under a key.
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        guard key.count == keyLength else { throw CryptoError(.invalidParameters, "AES-GCM: key must be 32 bytes") }
        guard nonce.count == nonceLength else { throw CryptoError(.invalidParameters, "AES-GCM: nonce must be 12 bytes") }
        let context = try CipherContext()
        try CryptoError.check(EVP_EncryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce), "EVP_EncryptInit_ex")
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try CryptoError.check(EVP_EncryptUpdate(context.pointer, nil, &length, associatedData, Int32(associatedData.count)),
                                  "EVP_EncryptUpdate(aad)")
        }
        // GCM is a stream mode: the ciphertext is exactly as long as the plaintext.
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0
        if !plaintext.isEmpty {
            try CryptoError.check(EVP_EncryptUpdate(context.pointer, &ciphertext, &written, plaintext, Int32(plaintext.count)),
                                  "EVP_EncryptUpdate")
        }
        var finalLength: Int32 = 0
        try ciphertext.withUnsafeMutableBufferPointer { buffer in
            // Safe: `buffer` has 16 spare bytes after `written`; GCM's final writes none.
            try CryptoError.check(EVP_EncryptFinal_ex(context.pointer, buffer.baseAddress! + Int(written), &finalLength),
                                  "EVP_EncryptFinal_ex")
        }
        ciphertext.removeLast(ciphertext.count - Int(written + finalLength))
        var tag = [UInt8](repeating: 0, count: tagLength)
        try CryptoError.check(EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag),
                              "EVP_CTRL_GCM_GET_TAG")
        return nonce + ciphertext + tag
    }

    /// Decrypts a box from `seal`; throws `.badSignature` when the box, the key or the
    /// associated data is not the one it was sealed with.
    package static func open(_ box: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        guard key.count == keyLength else { throw CryptoError(.invalidParameters, "AES-GCM: key must be 32 bytes") }
        guard box.count >= nonceLength + tagLength else { throw CryptoError(.malformed, "AES-GCM: box too short") }
        let nonce = Array(box[..<nonceLength])
        let ciphertext = Array(box[nonceLength..<(box.count - tagLength)])
        var tag = Array(box[(box.count - tagLength)...])
        let context = try CipherContext()
        try CryptoError.check(EVP_DecryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce), "EVP_DecryptInit_ex")
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try CryptoError.check(EVP_DecryptUpdate(context.pointer, nil, &length, associatedData, Int32(associatedData.count)),
                                  "EVP_DecryptUpdate(aad)")
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        if !ciphertext.isEmpty {
            try CryptoError.check(EVP_DecryptUpdate(context.pointer, &plaintext, &written, ciphertext, Int32(ciphertext.count)),
                                  "EVP_DecryptUpdate")
        }
        try CryptoError.check(EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag),
                              "EVP_CTRL_GCM_SET_TAG")
        var finalLength: Int32 = 0
        let rc = plaintext.withUnsafeMutableBufferPointer { buffer in
            // Safe: `buffer` has 16 spare bytes after `written`; GCM's final writes none.
            EVP_DecryptFinal_ex(context.pointer, buffer.baseAddress! + Int(written), &finalLength)
        }
        guard rc == 1 else {
            _ = ErrorQueue.drain()
            throw CryptoError(.badSignature, "AES-GCM: authentication failed")
        }
        plaintext.removeLast(plaintext.count - Int(written + finalLength))
        return plaintext
    }
}

/// Owns one OpenSSL `EVP_CIPHER_CTX`.
private final class CipherContext {
    let pointer: OpaquePointer

    init() throws {
        self.pointer = try CryptoError.unwrap(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
    }

    deinit {
        EVP_CIPHER_CTX_free(self.pointer)
    }
}
