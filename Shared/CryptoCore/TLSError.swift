internal import COpenSSL

/// A TLS failure: what we were doing, and OpenSSL's own error text.
///
/// The text comes from OpenSSL's error queue (`ERR_error_string_n`) and names the failing
/// operation, never key material or application data.
package struct TLSError: Error, CustomStringConvertible {
    /// The kind of failure, for callers that react differently (e.g. log vs. alert).
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        package var description: String { self.name }

        /// Building a context or connection failed: bad PEM, key mismatch, out of memory.
        package static let configuration = Code("configuration")
        /// The handshake failed: not TLS, no shared version or cipher, an alert from the peer.
        package static let handshakeFailed = Code("handshake failed")
        /// The peer's certificate did not verify against the trust roots or the expected name.
        package static let certificateVerificationFailed = Code("certificate verification failed")
        /// Client and server share no ALPN protocol (for us: the client does not offer "h2").
        package static let noApplicationProtocol = Code("no application protocol")
        /// A TLS protocol error after the handshake (bad record MAC, unexpected message).
        package static let protocolError = Code("protocol error")
        /// The socket failed underneath TLS (`errno` in the message).
        package static let ioError = Code("I/O error")
    }

    /// The kind of failure.
    package var code: Code
    /// The OpenSSL call or step that failed.
    package var operation: String
    /// OpenSSL's error text, oldest first, or a short explanation.
    package var message: String

    package init(code: Code, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    package var description: String {
        "TLSError(\(self.code)): \(self.operation): \(self.message)"
    }
}

extension TLSError {
    /// Throws a `.configuration` error with the drained error queue unless `rc == 1`, OpenSSL's
    /// usual success value.
    static func check(_ rc: Int32, _ operation: String) throws {
        guard rc == 1 else {
            throw TLSError(code: .configuration, operation: operation, message: ErrorQueue.drain().text)
        }
    }

    /// Unwraps a pointer an OpenSSL constructor returned, throwing with the error queue on NULL.
    static func unwrap<Pointer>(_ pointer: Pointer?, _ operation: String) throws -> Pointer {
        guard let pointer else {
            throw TLSError(code: .configuration, operation: operation, message: ErrorQueue.drain().text)
        }
        return pointer
    }
}
