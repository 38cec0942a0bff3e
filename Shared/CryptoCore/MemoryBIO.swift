internal import COpenSSL

/// Owns an OpenSSL memory `BIO`: PEM text going into or coming out of OpenSSL.
final class MemoryBIO {
    /// The `BIO*`, valid until `deinit`.
    let pointer: OpaquePointer

    /// An empty, growable memory BIO for OpenSSL to write into.
    init() throws {
        self.pointer = try TLSError.unwrap(BIO_new(BIO_s_mem()), "BIO_new")
    }

    /// A memory BIO holding a copy of `bytes` (so the BIO never points into a Swift array).
    convenience init(copying bytes: [UInt8]) throws {
        try self.init()
        guard !bytes.isEmpty else { return }
        guard let length = Int32(exactly: bytes.count) else {
            throw TLSError(code: .configuration, operation: "BIO_write", message: "PEM input too large")
        }
        let written = bytes.withUnsafeBytes { BIO_write(self.pointer, $0.baseAddress, length) }
        guard written == length else {
            throw TLSError(code: .configuration, operation: "BIO_write", message: ErrorQueue.drain().text)
        }
    }

    /// A copy of everything written into the BIO and not yet read.
    func contents() -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = copenssl_bio_get_mem_data(self.pointer, &data)
        guard length > 0, let data else { return [] }
        // Safe: a memory BIO's data pointer addresses `length` readable bytes while the BIO lives.
        return Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
    }

    deinit {
        BIO_free(self.pointer)
    }
}
