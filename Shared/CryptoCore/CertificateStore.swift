internal import COpenSSL

/// Owns one OpenSSL `X509_STORE`: the trust anchors a chain must lead to.
final class CertificateStore {
    /// The `X509_STORE*`, valid until `deinit`.
    let pointer: OpaquePointer

    /// A store trusting exactly `roots`, with RFC 5280 strict checks (`X509_V_FLAG_X509_STRICT`).
    init(trusting roots: [Certificate]) throws {
        self.pointer = try CryptoError.unwrap(X509_STORE_new(), "X509_STORE_new")
        try CryptoError.check(X509_STORE_set_flags(self.pointer, UInt(X509_V_FLAG_X509_STRICT)), "X509_STORE_set_flags")
        for root in roots {
            // X509_STORE_add_cert takes its own reference to the certificate.
            try CryptoError.check(X509_STORE_add_cert(self.pointer, root.pointer), "X509_STORE_add_cert")
        }
    }

    deinit {
        X509_STORE_free(self.pointer)
    }
}
