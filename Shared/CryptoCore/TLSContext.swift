internal import COpenSSL

/// A server or client TLS configuration (an `SSL_CTX`): TLS 1.2 or newer, ALPN, no renegotiation.
///
/// Make one per listener or per upstream and share it across connections and threads.
package final class TLSContext: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` fixed during the factory, and
    // OpenSSL documents an SSL_CTX as safe to use from many threads once configured (SSL_new
    // takes its own reference under a lock). Nothing mutates the SSL_CTX after `init`.

    /// The `SSL_CTX*`, freed in `deinit`; each SSL made from it holds a reference of its own.
    let pointer: OpaquePointer
    /// Server or client: decides accept vs. connect state for new connections.
    let isServer: Bool
    /// Our ALPN protocols in preference order, as wire-format bytes (length-prefixed names);
    /// the server's select callback reads it through its `arg` pointer.
    let alpnWireFormat: [UInt8]
    /// Whether client connections check the server's certificate and name.
    let verifiesPeer: Bool

    private init(isServer: Bool, alpn: [String], verifiesPeer: Bool) throws {
        self.alpnWireFormat = try ALPN.wireFormat(alpn)
        self.isServer = isServer
        self.verifiesPeer = verifiesPeer
        let method = isServer ? TLS_server_method() : TLS_client_method()
        self.pointer = try TLSError.unwrap(SSL_CTX_new(method), "SSL_CTX_new")
        // Fully initialised from here: if configuration throws, `deinit` frees the SSL_CTX.

        try TLSError.check(
            copenssl_ctx_set_min_proto_version(self.pointer, TLS1_2_VERSION),
            "SSL_CTX_set_min_proto_version")
        // RFC 9113 §9.2.2: TLS 1.2 with HTTP/2 must use ephemeral key exchange and AEAD ciphers.
        try TLSError.check(SSL_CTX_set_cipher_list(self.pointer, Self.tls12Ciphers), "SSL_CTX_set_cipher_list")
        _ = copenssl_ctx_set_nonblocking_write_modes(self.pointer)
        _ = copenssl_ctx_set_default_options(self.pointer)
        // Never prompt on a terminal for a key passphrase; encrypted keys simply fail to load.
        SSL_CTX_set_default_passwd_cb(self.pointer, { _, _, _, _ in 0 })
    }

    deinit {
        SSL_CTX_free(self.pointer)
    }

    private static let tls12Ciphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")
}

extension TLSContext {
    /// A server context from PEM files: the leaf certificate first, then intermediates.
    ///
    /// A client that offers ALPN without any of `alpn` is refused with a fatal
    /// `no_application_protocol` alert; a client that offers no ALPN at all is accepted and
    /// `TLSConnection.negotiatedALPN` is nil.
    package static func makeServer(
        certificateChainPEMFile: String, privateKeyPEMFile: String, alpn: [String] = ["h2"]
    ) throws -> TLSContext {
        let context = try TLSContext(isServer: true, alpn: alpn, verifiesPeer: false)
        ERR_clear_error()
        try TLSError.check(
            SSL_CTX_use_certificate_chain_file(context.pointer, certificateChainPEMFile),
            "SSL_CTX_use_certificate_chain_file(\(certificateChainPEMFile))")
        try TLSError.check(
            SSL_CTX_use_PrivateKey_file(context.pointer, privateKeyPEMFile, SSL_FILETYPE_PEM),
            "SSL_CTX_use_PrivateKey_file(\(privateKeyPEMFile))")
        try context.finishServerSetup()
        return context
    }

    /// A server context from PEM bytes: the leaf certificate first, then intermediates.
    package static func makeServer(
        certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], alpn: [String] = ["h2"]
    ) throws -> TLSContext {
        let context = try TLSContext(isServer: true, alpn: alpn, verifiesPeer: false)
        let chain = try Certificate.readAll(pem: certificateChainPEM)
        let key = try EVPKey.read(pem: privateKeyPEM)
        ERR_clear_error()
        // Safe: readAll throws rather than return an empty array.
        try TLSError.check(SSL_CTX_use_certificate(context.pointer, chain.first!.pointer), "SSL_CTX_use_certificate")
        for intermediate in chain.dropFirst() {
            try TLSError.check(
                copenssl_ctx_add1_chain_cert(context.pointer, intermediate.pointer), "SSL_CTX_add1_chain_cert")
        }
        try TLSError.check(SSL_CTX_use_PrivateKey(context.pointer, key.pointer), "SSL_CTX_use_PrivateKey")
        try context.finishServerSetup()
        return context
    }

    /// A client context trusting the roots in a PEM file, or the system's roots when nil.
    ///
    /// With `verifyPeer`, each `TLSConnection` checks the chain and that the certificate names the
    /// `serverName` it was given (DNS name or IP address). Turn it off only in tests.
    package static func makeClient(
        trustRootsPEMFile: String?, alpn: [String] = ["h2"], verifyPeer: Bool = true
    ) throws -> TLSContext {
        let context = try TLSContext(isServer: false, alpn: alpn, verifiesPeer: verifyPeer)
        ERR_clear_error()
        if let trustRootsPEMFile {
            try TLSError.check(
                SSL_CTX_load_verify_locations(context.pointer, trustRootsPEMFile, nil),
                "SSL_CTX_load_verify_locations(\(trustRootsPEMFile))")
        } else {
            try TLSError.check(SSL_CTX_set_default_verify_paths(context.pointer), "SSL_CTX_set_default_verify_paths")
        }
        try context.finishClientSetup()
        return context
    }

    /// A client context trusting exactly the root certificates in `trustRootsPEM`.
    package static func makeClient(
        trustRootsPEM: [UInt8], alpn: [String] = ["h2"], verifyPeer: Bool = true
    ) throws -> TLSContext {
        let context = try TLSContext(isServer: false, alpn: alpn, verifiesPeer: verifyPeer)
        // The store belongs to the SSL_CTX; X509_STORE_add_cert takes its own reference.
        let store = SSL_CTX_get_cert_store(context.pointer)
        for root in try Certificate.readAll(pem: trustRootsPEM) {
            try TLSError.check(X509_STORE_add_cert(store, root.pointer), "X509_STORE_add_cert")
        }
        try context.finishClientSetup()
        return context
    }

    private func finishServerSetup() throws {
        try TLSError.check(SSL_CTX_check_private_key(self.pointer), "SSL_CTX_check_private_key")
        SSL_CTX_set_verify(self.pointer, SSL_VERIFY_NONE, nil)
        guard !self.alpnWireFormat.isEmpty else { return }
        // Safe: the callback runs only during handshakes of SSLs made from this context, and each
        // TLSConnection keeps its TLSContext alive, so `self` outlives every use of this pointer.
        let owner = Unmanaged.passUnretained(self).toOpaque()
        SSL_CTX_set_alpn_select_cb(self.pointer, { _, out, outLength, offered, offeredLength, owner in
            ALPN.select(out: out, outLength: outLength, offered: offered, offeredLength: offeredLength, owner: owner)
        }, owner)
    }

    private func finishClientSetup() throws {
        SSL_CTX_set_verify(self.pointer, self.verifiesPeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
        let rc = self.alpnWireFormat.withUnsafeBufferPointer { wire in
            // Safe: ALPN.wireFormat rejects lists longer than UInt32 (it caps at 65535 bytes).
            SSL_CTX_set_alpn_protos(self.pointer, wire.baseAddress, UInt32(wire.count))
        }
        // SSL_CTX_set_alpn_protos is the odd one out: 0 means success.
        try TLSError.check(rc == 0 ? 1 : 0, "SSL_CTX_set_alpn_protos")
    }
}
