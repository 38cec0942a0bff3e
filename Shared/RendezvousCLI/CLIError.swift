/// A failure of the CLI itself, reported like a call's error.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
