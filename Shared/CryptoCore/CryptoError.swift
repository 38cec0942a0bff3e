internal import COpenSSL

/// A failure of a cryptographic operation: what kind, and a short explanation.
///
/// The message names the step that failed and, for library failures, OpenSSL's error text. It
/// never holds key material, passwords, tokens, signatures or claim values.
package struct CryptoError: Error, CustomStringConvertible {
    /// The kind of failure, for callers that map it to a status or a log level.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        package var description: String { self.name }

        /// Input that is not what it claims to be: bad base64, bad JSON, wrong sizes, bad PEM.
        package static let malformed = Code("malformed")
        /// An algorithm, key type or curve we do not accept (including `none` and HMAC in JWS).
        package static let unsupportedAlgorithm = Code("unsupported algorithm")
        /// A signature that does not verify with the selected key.
        package static let badSignature = Code("bad signature")
        /// A token names a key ID that the key set does not hold (or names none).
        package static let unknownKeyID = Code("unknown key ID")
        /// A token or certificate past its expiry.
        package static let expired = Code("expired")
        /// A token or certificate before its start of validity.
        package static let notYetValid = Code("not yet valid")
        /// A token from an issuer we do not accept.
        package static let wrongIssuer = Code("wrong issuer")
        /// A token for another audience.
        package static let wrongAudience = Code("wrong audience")
        /// A token whose nonce differs from the one the client committed to.
        package static let wrongNonce = Code("wrong nonce")
        /// A certificate chain that does not lead to a trusted root.
        package static let untrustedChain = Code("untrusted chain")
        /// Parameters out of the accepted range (scrypt cost, key sizes, lengths).
        package static let invalidParameters = Code("invalid parameters")
        /// OpenSSL failed for a reason unrelated to the input (allocation, internal error).
        package static let libraryFailure = Code("library failure")
    }

    /// The kind of failure.
    package var code: Code
    /// What failed, in words safe to log.
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String {
        "CryptoError(\(self.code)): \(self.message)"
    }
}

extension CryptoError {
    /// Throws `code` with the drained OpenSSL error queue unless `rc == 1`, OpenSSL's usual
    /// success value.
    static func check(_ rc: Int32, _ operation: String, code: Code = .libraryFailure) throws {
        guard rc == 1 else {
            throw CryptoError(code, "\(operation): \(ErrorQueue.drain().text)")
        }
    }

    /// Unwraps a pointer an OpenSSL function returned, throwing with the error queue on NULL.
    static func unwrap<Pointer>(_ pointer: Pointer?, _ operation: String, code: Code = .libraryFailure) throws -> Pointer {
        guard let pointer else {
            throw CryptoError(code, "\(operation): \(ErrorQueue.drain().text)")
        }
        return pointer
    }

    /// Runs `body`, turning a `TLSError` from the shared OpenSSL helpers (PEM, BIO, X509) into
    /// a `CryptoError` with `code`.
    static func translating<T>(_ code: Code, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TLSError {
            throw CryptoError(code, "\(error.operation): \(error.message)")
        }
    }
}
