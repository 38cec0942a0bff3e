/// The plugin's parameter (`--rendezvous_opt=…`): comma-separated `key=value` pairs.
///
/// - `Visibility=public|package`: access of message and enum types (default `public`);
///   clients and server protocols are always `package`.
/// - `Module=NAME`: the Swift module the output is compiled into; `RPC` drops `import RPC`.
/// - `Namespace=PACKAGE:NAME`: the caseless enum holding a proto package's types instead of the
///   default (the PascalCase base name of each file); an empty NAME puts them at top level.
///   Repeatable.
/// - `Import=MODULE`: an extra `import` in every file (e.g. `Contracts` for `Timestamp` when
///   generating outside it). Repeatable.
/// - `Registry=NAME`: also emit `NAME.swift`, a table of every generated message by full
///   proto name.
/// - `Part=all|types|server`: what each file holds. `types` is what a client needs (messages,
///   enums and the typed clients, over RPCCore's transport protocol alone, so an app's build
///   has no nghttp2 or OpenSSL); `server` the providers and their `register(in:)` (over RPC's
///   server, importing the types with `Import=`), written as `<name>.server.pb.swift` and only
///   for files with services; `all` (the default) both in one file.
struct GeneratorOptions: Sendable, Equatable {
    /// Which declarations a run writes.
    enum Part: String, Sendable {
        case all, types, server

        var hasTypes: Bool { self != .server }
        var hasServers: Bool { self != .types }
    }

    var visibility = "public"
    var module = "Contracts"
    var namespaces: [String: String] = [:]
    var registry: String?
    var imports: [String] = []
    var part = Part.all

    init() {}

    init(parameter: String) throws {
        for pair in parameter.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw GeneratorError("parameter '\(pair)' is not key=value") }
            let key = parts[0].trimmingWhitespace, value = parts[1].trimmingWhitespace
            switch key {
            case "Visibility":
                guard value == "public" || value == "package" else {
                    throw GeneratorError("Visibility must be public or package, not '\(value)'")
                }
                visibility = value
            case "Module":
                module = value
            case "Namespace":
                let mapping = value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard mapping.count == 2, !mapping[0].isEmpty else {
                    throw GeneratorError("Namespace must be PACKAGE:NAME, not '\(value)'")
                }
                namespaces[String(mapping[0])] = String(mapping[1])
            case "Import":
                guard SwiftName.isIdentifier(value) else { throw GeneratorError("Import '\(value)' is not a module name") }
                imports.append(value)
            case "Part":
                guard let part = Part(rawValue: value) else { throw GeneratorError("Part must be all, types or server, not '\(value)'") }
                self.part = part
            case "Registry":
                guard SwiftName.isIdentifier(value) else { throw GeneratorError("Registry '\(value)' is not a Swift name") }
                registry = value
            default:
                throw GeneratorError("unknown parameter '\(key)'")
            }
        }
    }
}

extension Substring {
    var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
