/// Writes one message as a `ProtoMessage` struct: properties, initialisers, `encode` and
/// `decodeField`, then its nested messages and enums.
struct MessageEmitter {
    let message: MessageDescriptor
    let fullName: String
    let path: [Int32]
    /// Enclosing messages, outermost first.
    let scope: [MessageDescriptor]
    let file: FileEmitter

    var access: String { file.access }
    private var innerScope: [MessageDescriptor] { scope + [message] }

    /// The Swift enum names of a message's real (not proto3-optional) oneofs.
    static func oneofTypeNames(of message: MessageDescriptor) -> [String] {
        realOneofIndices(of: message).map { oneofTypeName(message, $0) }
    }

    static func realOneofIndices(of message: MessageDescriptor) -> [Int] {
        message.oneofNames.indices.filter { index in
            message.fields.contains { $0.oneofIndex == Int32(index) && !$0.isProto3Optional }
        }
    }

    static func oneofTypeName(_ message: MessageDescriptor, _ index: Int) -> String {
        let name = SwiftName.upperCamel(message.oneofNames[index])
        let taken = message.nestedMessages.contains { $0.name == name } || message.enums.contains { $0.name == name }
        return taken ? name + "Oneof" : name
    }

    func emit(_ printer: inout CodePrinter) throws {
        try SymbolTable.checkTypeName(message.name, fullName)
        let fields = try message.fields.enumerated().map { try FieldPlan(field: $1, index: $0, in: self) }
        let oneofs = Self.realOneofIndices(of: message)
        printer.doc(file.documentation(path, detail: "`\(fullName.dropFirst())`."))
        try printer.block("\(access) struct \(message.name): ProtoMessage, Hashable {") { printer in
            // Properties, in declaration order; a oneof where its first member is declared.
            var emittedOneofs: Set<Int32> = []
            for plan in fields {
                if let oneof = plan.oneof {
                    guard emittedOneofs.insert(oneof).inserted else { continue }
                    let typeName = Self.oneofTypeName(message, Int(oneof))
                    if let comment = file.comment(path + [8, oneof]) { printer.doc(comment) }
                    printer.line("\(access) var \(SwiftName.escaped(SwiftName.lowerCamel(message.oneofNames[Int(oneof)]))): \(typeName)?")
                    continue
                }
                printer.doc(file.documentation(plan.commentPath, detail: "`\(plan.declaration)`"))
                printer.line("\(access) var \(plan.propertyName): \(plan.swiftType)\(plan.initialValue.map { " = " + $0 } ?? "")")
            }
            if !fields.isEmpty { printer.line() }
            printer.line("\(access) init() {}")
            emitMemberwiseInit(fields, into: &printer)
            printer.line()
            emitEncode(fields, into: &printer)
            printer.line()
            emitDecode(fields, into: &printer)
            for index in oneofs {
                printer.line()
                try emitOneof(index, fields: fields, into: &printer)
            }
            for (index, nested) in message.nestedMessages.enumerated() where !nested.isMapEntry {
                printer.line()
                try MessageEmitter(message: nested, fullName: fullName + "." + nested.name, path: path + [3, Int32(index)],
                                   scope: innerScope, file: file).emit(&printer)
            }
            for (index, item) in message.enums.enumerated() {
                printer.line()
                try file.emitEnum(item, fullName: fullName + "." + item.name, path: path + [4, Int32(index)], into: &printer)
            }
        }
    }

    /// `init(a: A = default, …)` over every property, oneofs as one optional each.
    private func emitMemberwiseInit(_ fields: [FieldPlan], into printer: inout CodePrinter) {
        var parameters: [(name: String, type: String, value: String)] = []
        var seen: Set<Int32> = []
        for plan in fields {
            if let oneof = plan.oneof {
                guard seen.insert(oneof).inserted else { continue }
                let name = SwiftName.escaped(SwiftName.lowerCamel(message.oneofNames[Int(oneof)]))
                parameters.append((name, Self.oneofTypeName(message, Int(oneof)) + "?", "nil"))
            } else {
                parameters.append((plan.propertyName, plan.swiftType, plan.initialValue ?? "nil"))
            }
        }
        guard !parameters.isEmpty else { return }
        printer.line()
        let list = parameters.map { "\($0.name): \($0.type) = \($0.value)" }
        let opening = "\(access) init(\(list.joined(separator: ", "))) {"
        if opening.count <= 110 {
            printer.line(opening)
        } else {
            printer.line("\(access) init(")
            for (index, item) in list.enumerated() {
                printer.line("    " + item + (index == list.count - 1 ? "" : ","))
            }
            printer.line(") {")
        }
        for parameter in parameters {
            printer.line("    self.\(parameter.name.replacingBackticks) = \(parameter.name)")
        }
        printer.line("}")
    }

    private func emitEncode(_ fields: [FieldPlan], into printer: inout CodePrinter) {
        let ordered = fields.sorted { $0.field.number < $1.field.number }
        let signature = "\(access) func encode(to writer: inout ProtoWriter) {"
        guard !ordered.isEmpty else {
            printer.line(signature + "}")
            return
        }
        printer.block(signature) { printer in
            for plan in ordered {
                for line in plan.encodeLines() { printer.line(line) }
            }
        }
    }

    private func emitDecode(_ fields: [FieldPlan], into printer: inout CodePrinter) {
        printer.block("\(access) mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {") { printer in
            guard !fields.isEmpty else {
                printer.line("try reader.skipField()")
                return
            }
            printer.line("switch field {")
            do {
                for plan in fields.sorted(by: { $0.field.number < $1.field.number }) {
                    let lines = plan.decodeLines()
                    if lines.count == 1 {
                        printer.line("case \(plan.field.number): \(lines[0])")
                    } else {
                        printer.line("case \(plan.field.number):")
                        for line in lines { printer.line("    " + line) }
                    }
                }
                printer.line("default: try reader.skipField()")
            }
            printer.line("}")
        }
    }

    private func emitOneof(_ index: Int, fields: [FieldPlan], into printer: inout CodePrinter) throws {
        let members = fields.filter { $0.oneof == Int32(index) }
        printer.doc("`oneof \(message.oneofNames[index])` of `\(fullName.dropFirst())`: at most one member is set.")
        printer.block("\(access) enum \(Self.oneofTypeName(message, index)): Sendable, Hashable {") { printer in
            for plan in members {
                printer.doc(file.documentation(plan.commentPath, detail: "`\(plan.declaration)`"))
                printer.line("case \(plan.propertyName)(\(plan.valueType))")
            }
        }
    }
}

extension String {
    /// The name without the backticks that escape a keyword (`self.default` needs none).
    var replacingBackticks: String { filter { $0 != "`" } }
}
