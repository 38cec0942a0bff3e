/// Typed reads of environment variables; every failure is a `ConfigurationError` naming the
/// variable. Services use it (`context.environment`) for settings of their own.
package struct EnvironmentReader: Sendable {
    /// The variables read.
    package let environment: Environment

    /// A reader over `environment`.
    package init(environment: Environment) {
        self.environment = environment
    }

    /// The raw value; nil when unset or empty.
    package subscript(_ name: String) -> String? { environment[name] }

    /// A value that must be set.
    package func required(_ name: String) throws(ConfigurationError) -> String {
        guard let value = environment[name] else {
            throw ConfigurationError(variable: name, message: "must be set")
        }
        return value
    }

    /// A TCP port (0-65535).
    package func port(_ name: String) throws(ConfigurationError) -> Int? {
        guard let text = environment[name] else { return nil }
        return try Self.parsePort(text, variable: name)
    }

    static func parsePort(_ text: String?, variable: String) throws(ConfigurationError) -> Int {
        guard let text, let port = Int(text), (0...65535).contains(port) else {
            throw ConfigurationError(variable: variable,
                                     message: "must be a port number (0-65535), got \(quoted(text))")
        }
        return port
    }

    /// A whole number within `range`.
    package func integer(_ name: String, range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let text = environment[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                variable: name,
                message: "must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(Self.quoted(text))")
        }
        return value
    }

    /// A (possibly fractional) number of seconds within `range`.
    package func seconds(_ name: String, range: ClosedRange<Double>) throws(ConfigurationError) -> Duration? {
        guard let text = environment[name] else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw ConfigurationError(
                variable: name,
                message: "must be a number of seconds from \(Int(range.lowerBound)) to \(Int(range.upperBound)), got \(Self.quoted(text))")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    /// A fraction from 0 to 1 (`0.1` for a tenth).
    package func fraction(_ name: String) throws(ConfigurationError) -> Double? {
        guard let text = environment[name] else { return nil }
        guard let value = Double(text), value.isFinite, (0...1).contains(value) else {
            throw ConfigurationError(variable: name, message: "must be a number from 0 to 1, got \(Self.quoted(text))")
        }
        return value
    }

    /// One of `allowed`, compared case-insensitively; returned lowercased.
    package func choice(_ name: String, _ allowed: [String]) throws(ConfigurationError) -> String? {
        guard let text = environment[name] else { return nil }
        let lowered = text.lowercased()
        guard allowed.contains(lowered) else {
            throw ConfigurationError(
                variable: name,
                message: "must be one of \(allowed.joined(separator: ", ")), got \(Self.quoted(text))")
        }
        return lowered
    }

    static func quoted(_ text: String?) -> String {
        guard let text else { return "nothing" }
        return "\"\(text)\""
    }
}
