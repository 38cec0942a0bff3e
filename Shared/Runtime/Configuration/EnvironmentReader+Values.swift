import Foundation

/// The shapes of setting the services read alike, parsed in one place.
extension EnvironmentReader {
    /// The host and port of another service's address as configured (`host:port`, e.g.
    /// `identity:7101`); anything else stops start-up naming `variable`.
    package static func hostAndPort(_ address: String, variable: String) throws(ConfigurationError) -> (host: String, port: Int) {
        guard let colon = address.lastIndex(of: ":"), colon != address.startIndex,
              let port = Int(address[address.index(after: colon)...]), (1...65535).contains(port) else {
            throw ConfigurationError(variable: variable, message: "must be host:port")
        }
        return (String(address[..<colon]), port)
    }

    /// A comma-separated list of names (apps, roles, services), trimmed and lowercased, empty
    /// items dropped.
    package static func names(_ text: String) -> Set<String> {
        Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
    }
}
