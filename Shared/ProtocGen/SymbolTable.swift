/// Every message and enum of a request by full proto name (".pkg.Outer.Inner"), with the Swift
/// name it is generated under.
struct SymbolTable {
    enum Kind {
        case message(MessageDescriptor)
        case enumeration(EnumDescriptor)
    }

    struct Symbol {
        var kind: Kind
        /// Full proto name without the leading dot.
        var protoName: String
        /// The file that declares it.
        var file: String
        /// The caseless enum holding the package's types; nil at top level.
        var namespace: String?
        /// Type names from the namespace down, e.g. ["HealthCheckResponse", "ServingStatus"].
        var nesting: [String]

        /// The Swift type as written from outside its namespace.
        var qualifiedName: String {
            ((namespace.map { [$0] } ?? []) + nesting).joined(separator: ".")
        }
    }

    /// Well-known types mapped to hand-written Swift types instead of generated ones.
    static let mappedTypes = [".google.protobuf.Timestamp": "Timestamp"]

    private(set) var symbols: [String: Symbol] = [:]
    private let options: GeneratorOptions

    init(files: [FileDescriptor], options: GeneratorOptions) throws {
        self.options = options
        for file in files {
            let namespace = Self.namespace(of: file, options: options)
            let prefix = file.package.isEmpty ? "" : "." + file.package
            for message in file.messages {
                try add(message, prefix: prefix, nesting: [], file: file.name, namespace: namespace)
            }
            for item in file.enums {
                try add(item, prefix: prefix, nesting: [], file: file.name, namespace: namespace)
            }
        }
    }

    /// The namespace of a file's types: the option for its package, else the PascalCase base name.
    static func namespace(of file: FileDescriptor, options: GeneratorOptions) -> String? {
        if let configured = options.namespaces[file.package] {
            return configured.isEmpty ? nil : configured
        }
        let base = file.name.split(separator: "/").last.map(String.init) ?? file.name
        let stem = base.hasSuffix(".proto") ? String(base.dropLast(6)) : base
        return SwiftName.upperCamel(stem)
    }

    /// Refuses a proto type name that cannot name a Swift type (`Type`, `Protocol`, keywords).
    static func checkTypeName(_ name: String, _ fullName: String) throws {
        guard !SwiftName.keywords.contains(name), SwiftName.isIdentifier(name) else {
            throw GeneratorError("\(fullName.dropFirst()): '\(name)' cannot be a Swift type name")
        }
    }

    func symbol(_ fullName: String) throws -> Symbol {
        guard let symbol = symbols[fullName] else { throw GeneratorError("unknown type \(fullName)") }
        return symbol
    }

    func message(_ fullName: String) throws -> MessageDescriptor {
        guard case .message(let message) = try symbol(fullName).kind else {
            throw GeneratorError("\(fullName) is not a message")
        }
        return message
    }

    func enumeration(_ fullName: String) throws -> EnumDescriptor {
        guard case .enumeration(let item) = try symbol(fullName).kind else {
            throw GeneratorError("\(fullName) is not an enum")
        }
        return item
    }

    private mutating func add(_ message: MessageDescriptor, prefix: String, nesting: [String], file: String,
                              namespace: String?) throws {
        let fullName = prefix + "." + message.name
        let nesting = nesting + [message.name]
        symbols[fullName] = Symbol(kind: .message(message), protoName: String(fullName.dropFirst()), file: file,
                                   namespace: namespace, nesting: nesting)
        for nested in message.nestedMessages {
            try add(nested, prefix: fullName, nesting: nesting, file: file, namespace: namespace)
        }
        for item in message.enums {
            try add(item, prefix: fullName, nesting: nesting, file: file, namespace: namespace)
        }
    }

    private mutating func add(_ item: EnumDescriptor, prefix: String, nesting: [String], file: String,
                              namespace: String?) throws {
        let fullName = prefix + "." + item.name
        symbols[fullName] = Symbol(kind: .enumeration(item), protoName: String(fullName.dropFirst()), file: file,
                                   namespace: namespace, nesting: nesting + [item.name])
    }
}
