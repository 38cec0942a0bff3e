internal import COpenSSL

extension TestCertificates {
    /// A root → intermediate → leaf chain of EC P-256 certificates, shaped like the App Store's.
    package struct Chain: Sendable {
        /// The root certificate as PEM: the trust anchor to configure.
        package var rootPEM: [UInt8]
        /// DER certificates leaf first: leaf, intermediate, root (as an `x5c` header lists them).
        package var chainDER: [[UInt8]]
        /// The leaf's private key as PKCS#8 PEM, to sign with.
        package var leafPrivateKeyPEM: [UInt8]
    }

    /// A fresh three-level chain. The CAs are valid from 30 days ago for a year; the leaf from
    /// `leafNotBefore` to `leafNotAfter` seconds relative to now (so tests can make it expired or
    /// not yet valid). With `appStoreMarkers` (the default) the leaf and the intermediate carry
    /// Apple's App Store marker extensions (`X509ChainVerifier.appStoreMarkers`), as the App Store's do; without, the chain is like any
    /// other certificate under the same root.
    package static func makeChain(leafNotBefore: Int = -3600, leafNotAfter: Int = 365 * 24 * 3600,
                                  appStoreMarkers: Bool = true) throws -> Chain {
        let caValidity = (notBefore: -30 * 24 * 3600, notAfter: 365 * 24 * 3600)
        let rootKey = try EVPKey.makeP256()
        let root = try issue(
            commonName: "Rendezvous Test Root CA", key: rootKey, issuer: nil, isCA: true, validity: caValidity)
        let intermediateKey = try EVPKey.makeP256()
        let intermediate = try issue(
            commonName: "Rendezvous Test Intermediate CA", key: intermediateKey, issuer: (root, rootKey), isCA: true,
            validity: caValidity, marker: appStoreMarkers ? X509ChainVerifier.appStoreMarkers[1] : nil)
        let leafKey = try EVPKey.makeP256()
        let leaf = try issue(
            commonName: "Rendezvous Test Signing Leaf", key: leafKey, issuer: (intermediate, intermediateKey), isCA: false,
            validity: (leafNotBefore, leafNotAfter), marker: appStoreMarkers ? X509ChainVerifier.appStoreMarkers[0] : nil)
        return Chain(
            rootPEM: try root.pemBytes(),
            chainDER: [try leaf.derBytes(), try intermediate.derBytes(), try root.derBytes()],
            leafPrivateKeyPEM: try leafKey.pemBytes())
    }

    /// A certificate for `key` signed by `issuer` (self-signed by `key` when nil), with the
    /// extensions RFC 5280 (and OpenSSL's strict mode) expect of a CA or an end entity.
    private static func issue(
        commonName: String, key: EVPKey, issuer: (certificate: Certificate, key: EVPKey)?, isCA: Bool,
        validity: (notBefore: Int, notAfter: Int), marker: String? = nil
    ) throws -> Certificate {
        let certificate = try Certificate()
        let x509 = certificate.pointer
        try TLSError.check(X509_set_version(x509, Int(X509_VERSION_3)), "X509_set_version")
        try TLSError.check(ASN1_INTEGER_set(X509_get_serialNumber(x509), randomSerial()), "ASN1_INTEGER_set")
        _ = try TLSError.unwrap(X509_gmtime_adj(X509_getm_notBefore(x509), validity.notBefore), "X509_gmtime_adj")
        _ = try TLSError.unwrap(X509_gmtime_adj(X509_getm_notAfter(x509), validity.notAfter), "X509_gmtime_adj")
        try TLSError.check(X509_set_pubkey(x509, key.pointer), "X509_set_pubkey")

        let name = X509_get_subject_name(x509)
        try TLSError.check(
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0), "X509_NAME_add_entry_by_txt")
        let issuerCertificate = issuer?.certificate.pointer ?? x509
        try TLSError.check(X509_set_issuer_name(x509, X509_get_subject_name(issuerCertificate)), "X509_set_issuer_name")

        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, isCA ? "critical,CA:TRUE" : "critical,CA:FALSE"),
            (NID_key_usage, isCA ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        for (nid, value) in extensions {
            try TLSError.check(
                copenssl_x509_add_extension(x509, issuerCertificate, nid, value), "X509V3_EXT_conf_nid(\(nid))")
        }
        if let marker {
            try TLSError.check(copenssl_x509_add_extension_oid(x509, issuerCertificate, marker, "ASN1:NULL"),
                               "X509V3_EXT_nconf(\(marker))")
        }
        // X509_sign returns the signature length, 0 on failure.
        guard X509_sign(x509, (issuer?.key ?? key).pointer, EVP_sha256()) > 0 else {
            throw TLSError(code: .configuration, operation: "X509_sign", message: ErrorQueue.drain().text)
        }
        return certificate
    }
}
