/// A setting that is missing or malformed at start-up; names the variable (or argument) at fault.
///
/// `ServiceMain` prints it and exits with status 2 before anything is started.
package struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The environment variable or command-line option, e.g. `RV_IDENTITY_PORT` or `--port`.
    package var variable: String
    /// What is wrong and what is expected.
    package var message: String

    /// An error about `variable`.
    package init(variable: String, message: String) {
        self.variable = variable
        self.message = message
    }

    /// `VARIABLE: message`, as printed before exiting.
    package var description: String { "\(variable): \(message)" }
}
