internal import CLibPQ
import Foundation

/// Where and how to connect, and how the pool behaves. `description` omits the password.
package struct PostgresConfiguration: Sendable, CustomStringConvertible {
    package var host: String
    package var port: Int
    package var database: String
    package var user: String
    package var password: String?
    /// Shown in `pg_stat_activity`; lets operators (and tests) find this pool's backends.
    package var applicationName: String
    /// Most connections the pool opens.
    package var poolSize: Int
    /// Longest wait for a TCP connection and authentication.
    package var connectTimeout: Duration
    /// Longest wait for a free pooled connection before `.poolTimeout`.
    package var acquireTimeout: Duration
    /// Server-side `statement_timeout` per statement; nil for none.
    package var statementTimeout: Duration?
    /// More session settings (`-c name=value …`), sent before this configuration's own, which
    /// win: by default the environment's `PGOPTIONS`, which libpq applies only to connections
    /// that set no options of their own, as ours do. `make test` relaxes `synchronous_commit`
    /// for its own sessions this way, leaving the cluster's setting alone.
    package var sessionOptions: String?

    package init(host: String = "127.0.0.1", port: Int = 5432, database: String, user: String,
                 password: String? = nil, applicationName: String = "rendezvous", poolSize: Int = 10,
                 connectTimeout: Duration = .seconds(5), acquireTimeout: Duration = .seconds(5),
                 statementTimeout: Duration? = .seconds(30)) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
        self.applicationName = applicationName
        self.poolSize = poolSize
        self.connectTimeout = connectTimeout
        self.acquireTimeout = acquireTimeout
        self.statementTimeout = statementTimeout
        self.sessionOptions = ProcessInfo.processInfo.environment["PGOPTIONS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses a libpq connection URL (`postgresql://user:pw@host:port/db?application_name=x`)
    /// or `key=value` conninfo string with libpq's own parser; pool settings keep defaults.
    package init(url: String) throws(PostgresError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &errorMessage) else {
            // The parser's message can echo the string, which may hold a password: drop it.
            PQfreemem(errorMessage)
            throw PostgresError(code: .connectionFailed, context: "invalid connection string")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1  // the array ends with a nil keyword, checked by the loop condition
        }
        let port = values["port"].map { Int($0) } ?? 5432
        guard let port else {
            throw PostgresError(code: .connectionFailed, context: "invalid port in connection string")
        }
        self.init(host: values["host"] ?? "127.0.0.1",
                  port: port,
                  database: values["dbname"] ?? values["user"] ?? "postgres",
                  user: values["user"] ?? "postgres",
                  password: values["password"],
                  applicationName: values["application_name"] ?? "rendezvous")
        if let seconds = values["connect_timeout"].flatMap({ Int($0) }) {
            connectTimeout = .seconds(seconds)
        }
    }

    package var description: String {
        "postgresql://\(user)@\(host):\(port)/\(database) (pool \(poolSize), app \(applicationName))"
    }

    /// libpq keywords and values for `PQconnectdbParams`.
    var connectionParameters: [(String, String)] {
        // jit off: our statements are short OLTP queries, and Postgres' cost estimates (a PostGIS
        // filter makes them huge) would otherwise spend hundreds of milliseconds compiling one
        // (a 100k-profile feed query: 490 ms with JIT, 90 ms without).
        var options = sessionOptions.map { $0 + " " } ?? ""
        options += "-c TimeZone=UTC -c jit=off"
        if let statementTimeout {
            options += " -c statement_timeout=\(Self.milliseconds(statementTimeout))"
        }
        var parameters: [(String, String)] = [
            ("host", host), ("port", String(port)), ("dbname", database), ("user", user),
            ("application_name", applicationName), ("client_encoding", "UTF8"),
            ("connect_timeout", String(max(1, Self.milliseconds(connectTimeout) / 1000))),
            ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"),
            ("keepalives_count", "3"), ("options", options),
        ]
        if let password { parameters.append(("password", password)) }
        return parameters
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
