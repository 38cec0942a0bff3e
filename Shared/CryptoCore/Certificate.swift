internal import COpenSSL

/// Owns one OpenSSL `X509` certificate.
final class Certificate {
    /// The `X509*`, valid until `deinit`.
    let pointer: OpaquePointer

    /// Takes ownership of a certificate reference: `deinit` frees it.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A fresh, empty certificate to fill in and sign.
    convenience init() throws {
        self.init(taking: try TLSError.unwrap(X509_new(), "X509_new"))
    }

    /// Every certificate in a PEM bundle, in file order; throws if there is none or one is bad.
    static func readAll(pem: [UInt8]) throws -> [Certificate] {
        let bio = try MemoryBIO(copying: pem)
        var certificates: [Certificate] = []
        ERR_clear_error()
        while let x509 = PEM_read_bio_X509(bio.pointer, nil, nil, nil) {
            certificates.append(Certificate(taking: x509))
        }
        // The loop ends with PEM_R_NO_START_LINE at end of input; anything else is a bad block.
        let queue = ErrorQueue.drain()
        let endOfInput = queue.reasons.allSatisfy { $0 == PEM_R_NO_START_LINE }
        guard endOfInput, !certificates.isEmpty else {
            throw TLSError(code: .configuration, operation: "PEM_read_bio_X509", message: queue.text)
        }
        return certificates
    }

    /// The certificate as a PEM block.
    func pemBytes() throws -> [UInt8] {
        let bio = try MemoryBIO()
        try TLSError.check(PEM_write_bio_X509(bio.pointer, self.pointer), "PEM_write_bio_X509")
        return bio.contents()
    }

    deinit {
        X509_free(self.pointer)
    }
}
