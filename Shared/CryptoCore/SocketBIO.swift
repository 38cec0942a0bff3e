internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#endif

/// A BIO over a non-blocking socket that sends with `MSG_NOSIGNAL`.
///
/// OpenSSL's own socket BIO uses `write(2)`, which raises SIGPIPE (killing the process by
/// default) when TLS writes an alert or data to a peer that has gone. This one never does,
/// so nobody has to remember to ignore SIGPIPE process-wide.
enum SocketBIO {
    /// A new BIO reading and writing `owner.fileDescriptor`; `owner` is held unretained, so
    /// it must outlive the BIO (TLSConnection does: it frees the SSL, and so the BIO, in deinit).
    static func make(owner: TLSConnection) throws -> OpaquePointer {
        let bio = try TLSError.unwrap(BIO_new(self.method.pointer), "BIO_new(socket)")
        BIO_set_data(bio, Unmanaged.passUnretained(owner).toOpaque())
        BIO_set_init(bio, 1)
        return bio
    }

    /// The method table, built once and never freed (like OpenSSL's own BIO_s_socket()).
    private static let method = Method()

    private struct Method: @unchecked Sendable {
        // @unchecked Sendable: the BIO_METHOD is written only here, before any use, and OpenSSL
        // only reads it afterwards, from any thread.
        let pointer: OpaquePointer

        init() {
            let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR
            // Allocation failure at first TLS use leaves nothing sensible to do.
            guard let pointer = BIO_meth_new(type, "rendezvous socket") else {
                fatalError("BIO_meth_new failed: \(ErrorQueue.drain().text)")
            }
            BIO_meth_set_write(pointer) { bio, data, length in SocketBIO.write(bio, data, length) }
            BIO_meth_set_read(pointer) { bio, data, length in SocketBIO.read(bio, data, length) }
            BIO_meth_set_ctrl(pointer) { bio, command, _, _ in SocketBIO.control(bio, command) }
            self.pointer = pointer
        }
    }

    private static func fileDescriptor(of bio: OpaquePointer?) -> Int32 {
        // Safe: `make` stored an unretained TLSConnection that outlives the BIO.
        Unmanaged<TLSConnection>.fromOpaque(BIO_get_data(bio)).takeUnretainedValue().fileDescriptor
    }

    private static func write(_ bio: OpaquePointer?, _ data: UnsafePointer<CChar>?, _ length: Int32) -> Int32 {
        copenssl_bio_clear_retry_flags(bio)
        let sent = send(fileDescriptor(of: bio), data, Int(length), Int32(MSG_NOSIGNAL))
        if sent < 0 && isTransient(errno) {
            copenssl_bio_set_retry_write(bio)
        }
        return Int32(sent)
    }

    private static func read(_ bio: OpaquePointer?, _ data: UnsafeMutablePointer<CChar>?, _ length: Int32) -> Int32 {
        copenssl_bio_clear_retry_flags(bio)
        let received = recv(fileDescriptor(of: bio), data, Int(length), 0)
        if received == 0 {
            copenssl_bio_set_eof(bio)
        } else if received < 0 && isTransient(errno) {
            copenssl_bio_set_retry_read(bio)
        }
        return Int32(received)
    }

    private static func control(_ bio: OpaquePointer?, _ command: Int32) -> Int {
        switch command {
        case BIO_CTRL_FLUSH: return 1  // Nothing is buffered here.
        case BIO_CTRL_EOF: return Int(copenssl_bio_is_eof(bio))
        default: return 0
        }
    }

    private static func isTransient(_ code: Int32) -> Bool {
        code == EAGAIN || code == EWOULDBLOCK || code == EINTR
    }
}
