/// Why a readiness check failed, as `/readyz` shows it after the check's name: words for an
/// operator, never a secret, a URL or a server message.
package struct ReadinessFailure: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
