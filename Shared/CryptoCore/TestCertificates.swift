internal import COpenSSL

/// Throwaway certificates for tests and local development; never for production.
package enum TestCertificates {
    /// A fresh self-signed EC P-256 certificate, valid from an hour ago for a year.
    ///
    /// Its subjectAltName lists DNS:`commonName`, DNS:localhost and IP:127.0.0.1, and it is a CA
    /// for itself, so a client that trusts this one PEM as its root (our `TLSContext`, Python
    /// grpcio's `ssl_channel_credentials(root_certificates:)`) verifies the server.
    /// `commonName` must be a plain host name (letters, digits, '-', '.').
    package static func makeSelfSigned(
        commonName: String = "localhost"
    ) throws -> (certificatePEM: [UInt8], privateKeyPEM: [UInt8]) {
        guard !commonName.isEmpty, commonName.utf8.allSatisfy(isHostNameByte) else {
            throw TLSError(code: .configuration, operation: "makeSelfSigned", message: "commonName must be a host name")
        }
        let key = try EVPKey.makeP256()
        let certificate = try Certificate()
        let x509 = certificate.pointer

        try TLSError.check(X509_set_version(x509, Int(X509_VERSION_3)), "X509_set_version")
        try TLSError.check(ASN1_INTEGER_set(X509_get_serialNumber(x509), randomSerial()), "ASN1_INTEGER_set")
        _ = try TLSError.unwrap(X509_gmtime_adj(X509_getm_notBefore(x509), -3600), "X509_gmtime_adj")
        _ = try TLSError.unwrap(X509_gmtime_adj(X509_getm_notAfter(x509), 365 * 24 * 3600), "X509_gmtime_adj")
        try TLSError.check(X509_set_pubkey(x509, key.pointer), "X509_set_pubkey")

        // The name belongs to the certificate; the issuer is a copy of it (self-signed).
        let name = X509_get_subject_name(x509)
        try TLSError.check(
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0), "X509_NAME_add_entry_by_txt")
        try TLSError.check(X509_set_issuer_name(x509, name), "X509_set_issuer_name")

        let alternativeNames = Set([commonName, "localhost"]).sorted().map { "DNS:\($0)" } + ["IP:127.0.0.1"]
        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
            (NID_ext_key_usage, "serverAuth,clientAuth"),
            (NID_subject_alt_name, alternativeNames.joined(separator: ",")),
        ]
        for (nid, value) in extensions {
            try TLSError.check(copenssl_x509_add_extension(x509, x509, nid, value), "X509V3_EXT_conf_nid(\(nid))")
        }

        // X509_sign returns the signature length, 0 on failure.
        guard X509_sign(x509, key.pointer, EVP_sha256()) > 0 else {
            throw TLSError(code: .configuration, operation: "X509_sign", message: ErrorQueue.drain().text)
        }
        return (try certificate.pemBytes(), try key.pemBytes())
    }

    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// A positive 62-bit serial, so two test certificates never share issuer and serial.
    static func randomSerial() -> Int {
        SecureRandom.bytes(8).reduce(0) { ($0 << 8) | Int($1) } & 0x3FFF_FFFF_FFFF_FFFF
    }
}
