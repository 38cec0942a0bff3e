internal import COpenSSL

/// Owns one OpenSSL `EVP_MD_CTX`: the state of one digest-sign or digest-verify operation.
final class DigestContext {
    /// The `EVP_MD_CTX*`, valid until `deinit`.
    let pointer: OpaquePointer

    init() throws {
        self.pointer = try CryptoError.unwrap(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
    }

    deinit {
        EVP_MD_CTX_free(self.pointer)
    }
}
