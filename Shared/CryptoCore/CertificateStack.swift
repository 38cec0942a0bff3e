internal import COpenSSL

/// Owns one OpenSSL `STACK_OF(X509)` of borrowed certificates: the untrusted intermediates
/// offered with a leaf.
final class CertificateStack {
    /// The `STACK_OF(X509)*`, valid until `deinit`.
    let pointer: OpaquePointer
    /// Keeps the stacked certificates alive as long as the stack, which does not own them.
    private let certificates: [Certificate]

    init(_ certificates: [Certificate]) throws {
        self.pointer = try CryptoError.unwrap(copenssl_sk_x509_new_null(), "sk_X509_new_null")
        self.certificates = certificates
        for certificate in certificates {
            // sk_X509_push returns the new count, 0 on failure.
            guard copenssl_sk_x509_push(self.pointer, certificate.pointer) > 0 else {
                throw CryptoError(.libraryFailure, "sk_X509_push: \(ErrorQueue.drain().text)")
            }
        }
    }

    deinit {
        copenssl_sk_x509_free(self.pointer)
    }
}
