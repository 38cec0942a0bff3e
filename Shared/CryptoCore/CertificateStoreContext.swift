internal import COpenSSL

/// Owns one OpenSSL `X509_STORE_CTX`: one chain verification.
final class CertificateStoreContext {
    /// The `X509_STORE_CTX*`, valid until `deinit`.
    let pointer: OpaquePointer
    /// The store, leaf and intermediates the context points into, kept alive with it.
    private let store: CertificateStore
    private let leaf: Certificate
    private let intermediates: CertificateStack

    init(store: CertificateStore, leaf: Certificate, intermediates: CertificateStack) throws {
        self.pointer = try CryptoError.unwrap(X509_STORE_CTX_new(), "X509_STORE_CTX_new")
        self.store = store
        self.leaf = leaf
        self.intermediates = intermediates
        try CryptoError.check(
            X509_STORE_CTX_init(self.pointer, store.pointer, leaf.pointer, intermediates.pointer), "X509_STORE_CTX_init")
    }

    deinit {
        X509_STORE_CTX_free(self.pointer)
    }
}
