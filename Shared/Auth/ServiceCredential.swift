import Foundation

/// One service's identity inside a deployment: its name and a shared secret, which it presents
/// on calls to another service's internal methods as
///
///     authorization: Service <name>:<secret>
///
/// (RFC 9110 §11.6.2 credentials with our own `Service` scheme, so proxies and log filters
/// treat it as the secret it is.) The callee holds only the SHA-256 of each accepted secret
/// (`ServiceCredentials`) and compares in constant time; `ServiceAuthInterceptor` checks it.
///
/// A name is 1–63 characters of `a-z`, `0-9`, `-`, `_`, starting with a letter (the service's
/// name, e.g. `messaging`). A secret is 32–512 visible ASCII characters other than `,`; make one
/// with `openssl rand -hex 32`. Its `description` never shows the secret.
package struct ServiceCredential: Sendable, CustomStringConvertible {
    /// The `authorization` scheme, matched case-insensitively.
    package static let scheme = "Service"
    /// Shortest secret accepted, in characters.
    package static let minimumSecretLength = 32
    /// Longest secret accepted, in characters: bounds the hashing a presented header can cause.
    package static let maximumSecretLength = 512

    /// The calling service's name.
    package let name: String
    package let secret: String

    /// A checked credential; throws when the name or secret breaks the rules above.
    package init(name: String, secret: String) throws(ServiceCredentialError) {
        guard Self.isValidName(name) else {
            throw ServiceCredentialError("a service name is 1-63 characters of a-z, 0-9, - and _, starting with a letter")
        }
        guard (Self.minimumSecretLength...Self.maximumSecretLength).contains(secret.utf8.count) else {
            throw ServiceCredentialError(
                "the secret of \"\(name)\" must have \(Self.minimumSecretLength) to \(Self.maximumSecretLength) characters")
        }
        guard secret.utf8.allSatisfy(Self.isSecretByte) else {
            throw ServiceCredentialError("the secret of \"\(name)\" may hold only visible ASCII characters other than ','")
        }
        self.name = name
        self.secret = secret
    }

    /// The value of the `authorization` metadata.
    package var authorizationValue: String { "\(Self.scheme) \(name):\(secret)" }

    /// The credential in an `authorization` value: MISSING_SERVICE_CREDENTIAL when it uses
    /// another scheme (a user's `Bearer` token), BAD_SERVICE_CREDENTIAL when it is malformed.
    package init(authorization header: String) throws(ServiceAuthFailure) {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == Self.scheme.lowercased() else {
            throw ServiceAuthFailure(.missingCredential)
        }
        let value = parts[1].trimmingCharacters(in: .whitespaces)
        guard let colon = value.firstIndex(of: ":") else { throw ServiceAuthFailure(.badCredential) }
        do {
            try self.init(name: String(value[..<colon]), secret: String(value[value.index(after: colon)...]))
        } catch {
            throw ServiceAuthFailure(.badCredential)
        }
    }

    package var description: String { "ServiceCredential(\(name))" }

    /// Whether `name` follows the rules of a service name.
    package static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else {
            return false
        }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// Visible ASCII (0x21–0x7E) except the list separator of `RV_SERVICE_CREDENTIALS`.
    private static func isSecretByte(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && byte != UInt8(ascii: ",")
    }
}
