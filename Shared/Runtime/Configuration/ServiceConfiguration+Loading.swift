#if canImport(Glibc)
import Glibc
#endif
import Logging

extension ServiceConfiguration {
    /// Reads and validates the configuration of service `name`; the first problem found throws.
    package static func load(name: String, defaultPort: Int, environment: Environment = .process,
                             arguments: [String] = Array(CommandLine.arguments.dropFirst())) throws(ConfigurationError) -> ServiceConfiguration {
        var configuration = ServiceConfiguration(name: name, port: defaultPort)
        let reader = EnvironmentReader(environment: environment)
        let hostVariable = variable("HOST", service: name)
        let portVariable = variable("PORT", service: name)
        let adminVariable = variable("ADMIN_PORT", service: name)

        if let host = reader[hostVariable] {
            configuration.host = try validHost(host, variable: hostVariable)
        }
        if let port = try reader.port(portVariable) { configuration.port = port }
        var adminPort = try reader.port(adminVariable)

        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--host":
                guard let host = remaining.popFirst() else {
                    throw ConfigurationError(variable: "--host", message: "needs an IPv4 address")
                }
                configuration.host = try validHost(host, variable: "--host")
            case "--port":
                configuration.port = try EnvironmentReader.parsePort(remaining.popFirst(), variable: "--port")
            case "--admin-port":
                adminPort = try EnvironmentReader.parsePort(remaining.popFirst(), variable: "--admin-port")
            default:
                throw ConfigurationError(
                    variable: argument,
                    message: "unknown argument; usage: [--host ADDR] [--port N] [--admin-port N]")
            }
        }

        if let adminPort {
            configuration.adminPort = adminPort
        } else if configuration.port == 0 {
            configuration.adminPort = 0
        } else {
            configuration.adminPort = configuration.port + 100
            guard configuration.adminPort <= 65535 else {
                throw ConfigurationError(
                    variable: adminVariable,
                    message: "defaults to the gRPC port + 100 = \(configuration.adminPort), which is not a port; set it explicitly")
            }
        }
        if configuration.adminPort != 0 && configuration.adminPort == configuration.port {
            throw ConfigurationError(variable: adminVariable,
                                     message: "must differ from the gRPC port \(configuration.port)")
        }

        if let level = try reader.choice("RV_LOG_LEVEL", Logger.Level.allCases.map(\.rawValue)) {
            // Safe: `choice` only returns one of the raw values offered.
            configuration.logLevel = Logger.Level(rawValue: level)!
        }
        if let format = try reader.choice("RV_LOG_FORMAT", LogFormat.allCases.map(\.rawValue)) {
            // Safe: as above.
            configuration.logFormat = LogFormat(rawValue: format)!
        }
        if let seconds = try reader.seconds("RV_SHUTDOWN_GRACE_SECONDS", range: 0...3600) {
            configuration.shutdownGracePeriod = seconds
        }
        configuration.loopCount = try reader.integer("RV_LOOP_COUNT", range: 1...256)
        configuration.tls = try tlsFiles(reader)
        configuration.corsOrigins = try corsOrigins(reader)
        configuration.postgresURL = reader[postgresVariable(service: name)]
        if let bound = try reader.seconds("RV_EVENT_LAG_BOUND_SECONDS", range: 0...86_400) {
            configuration.eventLagBound = bound == .zero ? nil : bound
        }
        configuration.otlpEndpoint = try otlpEndpoint(reader)
        configuration.traceSampleRatio = try reader.fraction("RV_TRACE_SAMPLE_RATIO") ?? 1
        return configuration
    }

    /// `RV_OTLP_ENDPOINT`: `host:port`, or `http://host:port` as OpenTelemetry's own variable
    /// writes it; the exporter speaks plaintext gRPC, so `https://` is refused.
    private static func otlpEndpoint(_ reader: EnvironmentReader) throws(ConfigurationError) -> Endpoint? {
        guard var text = reader["RV_OTLP_ENDPOINT"], !text.isEmpty else { return nil }
        if text.hasPrefix("https://") {
            throw ConfigurationError(variable: "RV_OTLP_ENDPOINT", message: "TLS is not supported; use a plaintext collector port")
        }
        if text.hasPrefix("http://") { text.removeFirst("http://".count) }
        if text.hasSuffix("/") { text.removeLast() }
        let (host, port) = try EnvironmentReader.hostAndPort(text, variable: "RV_OTLP_ENDPOINT")
        return Endpoint(host: host, port: port)
    }

    private static func validHost(_ host: String, variable: String) throws(ConfigurationError) -> String {
        if host == "localhost" { return host }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else {
            throw ConfigurationError(variable: variable,
                                     message: "must be an IPv4 address such as 127.0.0.1 or 0.0.0.0, got \"\(host)\"")
        }
        return host
    }

    /// `RV_CORS_ORIGINS`: comma-separated origins as browsers send them (scheme, host, optional
    /// port; no path), or `*`.
    private static func corsOrigins(_ reader: EnvironmentReader) throws(ConfigurationError) -> [String] {
        guard let text = reader["RV_CORS_ORIGINS"] else { return [] }
        var origins: [String] = []
        for item in text.split(separator: ",") {
            let origin = String(item.filter { $0 != " " }).lowercased()
            guard !origin.isEmpty else { continue }
            guard origin == "*" || isOrigin(origin) else {
                throw ConfigurationError(variable: "RV_CORS_ORIGINS",
                                         message: "must list origins such as https://app.example.com (or *), got \"\(origin)\"")
            }
            origins.append(origin)
        }
        return origins
    }

    private static func isOrigin(_ text: String) -> Bool {
        let schemeEnd: String.Index
        if text.hasPrefix("https://") {
            schemeEnd = text.index(text.startIndex, offsetBy: 8)
        } else if text.hasPrefix("http://") {
            schemeEnd = text.index(text.startIndex, offsetBy: 7)
        } else {
            return false
        }
        let authority = text[schemeEnd...]
        return !authority.isEmpty && authority.allSatisfy { $0.isLetter || $0.isNumber || "-.:[]".contains($0) }
    }

    private static func tlsFiles(_ reader: EnvironmentReader) throws(ConfigurationError) -> TLSFiles? {
        let certificate = reader["RV_TLS_CERT_FILE"]
        let key = reader["RV_TLS_KEY_FILE"]
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (_?, nil):
            throw ConfigurationError(variable: "RV_TLS_KEY_FILE", message: "must be set when RV_TLS_CERT_FILE is")
        case (nil, _?):
            throw ConfigurationError(variable: "RV_TLS_CERT_FILE", message: "must be set when RV_TLS_KEY_FILE is")
        case let (certificate?, key?):
            for (variable, path) in [("RV_TLS_CERT_FILE", certificate), ("RV_TLS_KEY_FILE", key)] {
                guard access(path, R_OK) == 0 else {
                    throw ConfigurationError(variable: variable, message: "cannot read \(path)")
                }
            }
            return TLSFiles(certificateChainFile: certificate, privateKeyFile: key)
        }
    }
}
