#if canImport(Glibc)
import Glibc
#endif

/// A snapshot of environment variables: the process's, or a literal table in tests.
///
/// An empty value counts as unset, so `FOO=` in a compose file falls back to the default.
package struct Environment: Sendable {
    private var values: [String: String]

    /// An environment holding exactly `values`.
    package init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// The current process's environment.
    package static var process: Environment {
        var values: [String: String] = [:]
        var entry = environ
        // Safe: `environ` is a NULL-terminated array of NUL-terminated strings.
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return Environment(values)
    }

    /// The value of `name`; nil when unset or empty.
    package subscript(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }
}
