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

    /// A certificate from DER bytes; throws `.malformed` for anything but exactly one certificate.
    convenience init(der: [UInt8]) throws {
        ERR_clear_error()
        var consumed = 0
        let x509 = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            // Safe: d2i reads at most `buffer.count` bytes and advances only its local cursor.
            var cursor = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            if let start = buffer.baseAddress, let cursor { consumed = cursor - start }
            return certificate
        }
        self.init(taking: try CryptoError.unwrap(x509, "d2i_X509", code: .malformed))
        guard consumed == der.count else { throw CryptoError(.malformed, "d2i_X509: trailing bytes after certificate") }
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

    /// The certificate as DER bytes.
    func derBytes() throws -> [UInt8] {
        let length = i2d_X509(self.pointer, nil)
        guard length > 0 else { throw TLSError(code: .configuration, operation: "i2d_X509", message: ErrorQueue.drain().text) }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            // Safe: the buffer holds the `length` bytes i2d_X509 just said it will write.
            var cursor = buffer.baseAddress
            return i2d_X509(self.pointer, &cursor)
        }
        guard written == length else { throw TLSError(code: .configuration, operation: "i2d_X509", message: ErrorQueue.drain().text) }
        return der
    }

    deinit {
        X509_free(self.pointer)
    }
}
