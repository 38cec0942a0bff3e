/// A service credential, or a list of accepted ones, that breaks the rules of
/// `ServiceCredential`; the message names the service, never the secret.
package struct ServiceCredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
