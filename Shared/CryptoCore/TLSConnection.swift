internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// One TLS session over a non-blocking socket (owns the `SSL`); not thread-safe.
///
/// Belongs to the event loop that polls its socket. Every call returns at once: `.wantRead` /
/// `.wantWrite` say which socket readiness to wait for before repeating the same call.
/// The file descriptor stays the caller's: it is neither closed here nor on `deinit`.
/// Socket writes use `MSG_NOSIGNAL`, so a vanished peer never raises SIGPIPE.
package final class TLSConnection {
    /// What one non-blocking TLS call achieved.
    package enum IOResult: Equatable, Sendable {
        /// Progress: bytes read or written; `handshake()` returns `.bytes(0)` once complete.
        case bytes(Int)
        /// Wait until the socket is readable, then repeat the call.
        case wantRead
        /// Wait until the socket is writable, then repeat the call (a write with the same bytes).
        case wantWrite
        /// The peer closed the session (close_notify, or TCP EOF); stop reading.
        case closed
    }

    /// The socket, read and written by `SocketBIO`; owned by the caller.
    let fileDescriptor: Int32
    /// Keeps the SSL_CTX and the ALPN callback's owner pointer alive as long as the SSL.
    private let context: TLSContext
    /// The `SSL*`, freed in `deinit`.
    private let pointer: OpaquePointer
    /// Set after a fatal error: OpenSSL forbids further I/O and `SSL_shutdown` then.
    private var failed = false
    private var handshakeComplete = false
    private var shutdownSent = false

    /// Starts a session on `fileDescriptor`, a connected non-blocking socket.
    ///
    /// For a client context, `serverName` is sent as SNI (unless it is an IP literal) and, with
    /// `verifyPeer`, must be named by the server's certificate; a verifying client without a
    /// `serverName` is refused. Servers ignore `serverName`.
    package init(context: TLSContext, fileDescriptor: Int32, serverName: String?) throws {
        self.context = context
        self.fileDescriptor = fileDescriptor
        ERR_clear_error()
        self.pointer = try TLSError.unwrap(SSL_new(context.pointer), "SSL_new")
        // Fully initialised from here: if setup throws, `deinit` frees the SSL.
        let bio = try SocketBIO.make(owner: self)
        // The SSL takes over our one reference for both directions and frees the BIO with itself.
        SSL_set_bio(self.pointer, bio, bio)
        if context.isServer {
            SSL_set_accept_state(self.pointer)
        } else {
            SSL_set_connect_state(self.pointer)
            try self.configureClient(serverName: serverName)
        }
    }

    deinit {
        SSL_free(self.pointer)
    }

    private func configureClient(serverName: String?) throws {
        guard let serverName, !serverName.isEmpty else {
            if self.context.verifiesPeer {
                throw TLSError(
                    code: .configuration, operation: "TLSConnection.init",
                    message: "a verifying client needs the server name to check the certificate against")
            }
            return
        }
        let isIPAddress = Self.isIPAddress(serverName)
        if !isIPAddress {
            // RFC 6066 §3: SNI carries DNS names only, never IP literals.
            try TLSError.check(copenssl_set_tlsext_host_name(self.pointer, serverName), "SSL_set_tlsext_host_name")
        }
        guard self.context.verifiesPeer else { return }
        if isIPAddress {
            try TLSError.check(X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(self.pointer), serverName), "X509_VERIFY_PARAM_set1_ip_asc")
        } else {
            try TLSError.check(SSL_set1_host(self.pointer, serverName), "SSL_set1_host")
        }
    }

    private static func isIPAddress(_ name: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, name, &address) == 1 || inet_pton(AF_INET6, name, &address) == 1
    }
}

extension TLSConnection {
    /// Advances the handshake: `.bytes(0)` when done, else wait as told and call again.
    package func handshake() throws -> IOResult {
        guard !self.handshakeComplete else { return .bytes(0) }
        try self.checkUsable("SSL_do_handshake")
        Self.resetErrorState()
        let rc = SSL_do_handshake(self.pointer)
        guard rc != 1 else {
            self.handshakeComplete = true
            return .bytes(0)
        }
        return try self.outcome(of: rc, "SSL_do_handshake")
    }

    /// The protocol agreed through ALPN ("h2"), or nil if the peer sent no ALPN.
    package var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(self.pointer, &data, &length)
        guard let data, length > 0 else { return nil }
        // Safe: OpenSSL returns `length` bytes it owns for the SSL's lifetime; we copy them now.
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Decrypts up to `buffer.count` bytes into `buffer`.
    ///
    /// OpenSSL buffers whole records, so plaintext may be waiting while the socket is not
    /// readable: keep reading until `.wantRead` before waiting for the socket again.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> IOResult {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .bytes(0) }
        try self.checkUsable("SSL_read_ex")
        Self.resetErrorState()
        var count = 0
        let rc = SSL_read_ex(self.pointer, base, buffer.count, &count)
        guard rc != 1 else { return .bytes(count) }
        return try self.outcome(of: rc, "SSL_read_ex")
    }

    /// Encrypts and sends a prefix of `bytes`; `.bytes(n)` says how many were taken.
    ///
    /// After `.wantWrite`, retry with the same bytes (they may have moved in memory) or more.
    package func write(_ bytes: UnsafeRawBufferPointer) throws -> IOResult {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .bytes(0) }
        try self.checkUsable("SSL_write_ex")
        Self.resetErrorState()
        var count = 0
        let rc = SSL_write_ex(self.pointer, base, bytes.count, &count)
        guard rc != 1 else { return .bytes(count) }
        return try self.outcome(of: rc, "SSL_write_ex")
    }

    /// Sends close_notify once if the session is healthy; never waits for the peer's reply.
    package func shutdown() {
        guard !self.failed, !self.shutdownSent, SSL_is_init_finished(self.pointer) == 1 else { return }
        self.shutdownSent = true
        ERR_clear_error()
        // Best effort: a full socket buffer (WANT_WRITE) or a reset peer just loses the alert.
        _ = SSL_shutdown(self.pointer)
        ERR_clear_error()
    }

    /// Clears the thread's OpenSSL error queue and errno, so that `outcome(of:)` sees only what
    /// the next SSL call leaves behind (SSL_get_error reads both).
    private static func resetErrorState() {
        ERR_clear_error()
        errno = 0
    }

    private func checkUsable(_ operation: String) throws {
        guard self.failed else { return }
        throw TLSError(code: .protocolError, operation: operation, message: "the session already failed")
    }

    /// Turns a failed SSL call into what the event loop should do next, or a thrown `TLSError`.
    private func outcome(of rc: Int32, _ operation: String) throws -> IOResult {
        let savedErrno = errno
        switch SSL_get_error(self.pointer, rc) {
        case SSL_ERROR_WANT_READ:
            return .wantRead
        case SSL_ERROR_WANT_WRITE:
            return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL:
            self.failed = true
            let queue = ErrorQueue.drain()
            if queue.reasons.isEmpty && savedErrno == 0 {
                return .closed  // TCP EOF that OpenSSL did not map to ZERO_RETURN.
            }
            let message = savedErrno != 0 ? String(cString: strerror(savedErrno)) : queue.text
            throw TLSError(code: .ioError, operation: operation, message: message)
        case SSL_ERROR_SSL:
            self.failed = true
            throw self.classifyFatalError(operation)
        case let other:
            self.failed = true
            throw TLSError(
                code: .protocolError, operation: operation,
                message: "unexpected SSL_get_error \(other): \(ErrorQueue.drain().text)")
        }
    }

    private func classifyFatalError(_ operation: String) -> TLSError {
        let queue = ErrorQueue.drain()
        guard !self.handshakeComplete else {
            return TLSError(code: .protocolError, operation: operation, message: queue.text)
        }
        let verifyResult = SSL_get_verify_result(self.pointer)
        if verifyResult != X509_V_OK {
            // Safe: X509_verify_cert_error_string returns a static string for any code.
            let reason = String(cString: X509_verify_cert_error_string(verifyResult))
            return TLSError(code: .certificateVerificationFailed, operation: operation, message: "\(reason); \(queue.text)")
        }
        let alpnReasons: Set<Int32> = [SSL_R_NO_APPLICATION_PROTOCOL, SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL]
        if queue.reasons.contains(where: alpnReasons.contains) {
            return TLSError(code: .noApplicationProtocol, operation: operation, message: queue.text)
        }
        return TLSError(code: .handshakeFailed, operation: operation, message: queue.text)
    }
}
