/// The few DER (X.690) structures JOSE needs: ECDSA signatures and SubjectPublicKeyInfo.
///
/// Encoding builds public keys and signatures from JWK and JOSE fields for OpenSSL to parse and
/// check; decoding reads only the ECDSA signatures OpenSSL itself produced.
enum DER {
    /// SubjectPublicKeyInfo up to the uncompressed point of an EC P-256 key
    /// (id-ecPublicKey, prime256v1, BIT STRING of 66 bytes), RFC 5480 §2.
    static let p256PublicKeyPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// AlgorithmIdentifier { rsaEncryption, NULL }, RFC 3279 §2.3.1.
    static let rsaAlgorithmIdentifier: [UInt8] = [
        0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00,
    ]

    /// The SubjectPublicKeyInfo of an RSA key with big-endian `modulus` and `exponent`.
    static func rsaPublicKeyInfo(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let rsaPublicKey = sequence(integer(modulus) + integer(exponent))
        return sequence(rsaAlgorithmIdentifier + element(tag: 0x03, [0x00] + rsaPublicKey))
    }

    /// A JOSE ECDSA signature (r‖s, each `width` bytes, RFC 7518 §3.4) as an ECDSA-Sig-Value.
    static func ecdsaSignature(raw: [UInt8], width: Int) -> [UInt8] {
        sequence(integer(Array(raw[..<width])) + integer(Array(raw[width...])))
    }

    /// The r‖s form of a DER ECDSA-Sig-Value, each integer left-padded to `width` bytes; nil
    /// for anything but one SEQUENCE of two non-negative INTEGERs that fit.
    static func rawECDSASignature(_ der: [UInt8], width: Int) -> [UInt8]? {
        var reader = Reader(bytes: der[...])
        guard let body = reader.read(tag: 0x30), reader.isAtEnd else { return nil }
        var fields = Reader(bytes: body)
        guard let r = fields.read(tag: 0x02), let s = fields.read(tag: 0x02), fields.isAtEnd,
              let paddedR = unsigned(r, width: width), let paddedS = unsigned(s, width: width) else { return nil }
        return paddedR + paddedS
    }

    /// A big-endian unsigned integer as a minimal DER INTEGER.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var content = Array(magnitude.drop(while: { $0 == 0 }))
        if content.first.map({ $0 & 0x80 != 0 }) ?? true { content.insert(0, at: 0) }
        return element(tag: 0x02, content)
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] {
        element(tag: 0x30, content)
    }

    static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    private static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var remaining = count
        while remaining > 0 {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// A non-negative DER INTEGER's content, without its sign byte, padded to `width`.
    private static func unsigned(_ content: ArraySlice<UInt8>, width: Int) -> [UInt8]? {
        guard let first = content.first, first & 0x80 == 0 else { return nil }
        let magnitude = content.drop(while: { $0 == 0 })
        guard magnitude.count <= width else { return nil }
        return [UInt8](repeating: 0, count: width - magnitude.count) + magnitude
    }

    /// Reads tag-length-value elements with short or long definite lengths.
    private struct Reader {
        var bytes: ArraySlice<UInt8>

        var isAtEnd: Bool { self.bytes.isEmpty }

        /// The content of the next element if it has `tag`; nil (and unchanged) otherwise.
        mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
            var rest = self.bytes
            guard rest.popFirst() == tag, let first = rest.popFirst() else { return nil }
            var count = Int(first)
            if first & 0x80 != 0 {
                let lengthBytes = Int(first & 0x7F)
                guard (1...2).contains(lengthBytes), rest.count >= lengthBytes else { return nil }
                count = rest.prefix(lengthBytes).reduce(0) { $0 << 8 | Int($1) }
                rest = rest.dropFirst(lengthBytes)
            }
            guard rest.count >= count else { return nil }
            self.bytes = rest.dropFirst(count)
            return rest.prefix(count)
        }
    }
}
