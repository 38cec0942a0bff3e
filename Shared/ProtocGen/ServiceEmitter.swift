/// Writes a service's server protocol (one requirement per RPC and a `register(in:)` that
/// routes them all) and its typed client.
struct ServiceEmitter {
    let service: ServiceDescriptor
    let index: Int
    let file: FileEmitter

    private var fullName: String { file.file.package.isEmpty ? service.name : file.file.package + "." + service.name }
    private var path: [Int32] { [6, Int32(index)] }

    private struct Method {
        var descriptor: MethodDescriptor
        var swiftName: String
        var input: String
        var output: String
        var comment: String?
        /// The request has no fields, so clients may leave it out.
        var emptyInput: Bool
    }

    private func methods() throws -> [Method] {
        try service.methods.enumerated().map { index, method in
            Method(descriptor: method, swiftName: SwiftName.escaped(SwiftName.lowerCamel(method.name)),
                   input: try file.qualifiedTypeName(method.inputType), output: try file.qualifiedTypeName(method.outputType),
                   comment: file.comment(path + [2, Int32(index)]),
                   emptyInput: (try? file.symbols.message(method.inputType))?.fields.isEmpty ?? false)
        }
    }

    func emit(_ printer: inout CodePrinter) throws {
        let methods = try methods()
        if file.options.part.hasServers {
            emitProvider(methods, into: &printer)
            printer.line()
            emitRegistration(methods, into: &printer)
        }
        if file.options.part == .all { printer.line() }
        if file.options.part.hasTypes {
            emitClient(methods, into: &printer)
        }
    }

    private func emitProvider(_ methods: [Method], into printer: inout CodePrinter) {
        printer.doc(file.documentation(path, detail: "The server side of `\(fullName)`: a service implements every requirement, and\nthe generated `register(in:)` routes each RPC to it."))
        printer.block("package protocol \(service.name)Provider: RPCService {") { printer in
            for (index, method) in methods.enumerated() {
                if index > 0 { printer.line() }
                printer.doc(methodDoc(method))
                printer.line("func \(method.swiftName)(\(serverParameters(method))) async throws\(serverResult(method))")
            }
        }
    }

    private func serverParameters(_ method: Method) -> String {
        switch (method.descriptor.clientStreaming, method.descriptor.serverStreaming) {
        case (false, false): "_ request: \(method.input), context: ServerCallContext"
        case (false, true): "_ request: \(method.input), writer: ResponseWriter<\(method.output)>, context: ServerCallContext"
        case (true, false): "_ requests: RequestStream<\(method.input)>, context: ServerCallContext"
        case (true, true): "_ requests: RequestStream<\(method.input)>, writer: ResponseWriter<\(method.output)>, context: ServerCallContext"
        }
    }

    private func serverResult(_ method: Method) -> String {
        method.descriptor.serverStreaming ? "" : " -> \(method.output)"
    }

    private func methodDoc(_ method: Method) -> String {
        let kind = switch (method.descriptor.clientStreaming, method.descriptor.serverStreaming) {
        case (false, false): "unary"
        case (false, true): "server streaming"
        case (true, false): "client streaming"
        case (true, true): "bidirectional streaming"
        }
        return (method.comment.map { $0 + "\n\n" } ?? "") + "`/\(fullName)/\(method.descriptor.name)`, \(kind)."
    }

    private func emitRegistration(_ methods: [Method], into printer: inout CodePrinter) {
        printer.block("extension \(service.name)Provider {") { printer in
            printer.line("package var serviceName: String { \"\(fullName)\" }")
            printer.line()
            printer.doc("Routes every RPC of `\(fullName)` to this provider.")
            printer.block("package func register(in router: inout RPCRouter) {") { printer in
                for method in methods {
                    let name = "\"\(method.descriptor.name)\""
                    let call = method.swiftName.replacingBackticks
                    switch (method.descriptor.clientStreaming, method.descriptor.serverStreaming) {
                    case (false, false):
                        printer.block("router.unary(serviceName, \(name)) { (request: \(method.input), context) in") {
                            $0.line("try await self.\(call)(request, context: context)")
                        }
                    case (false, true):
                        printer.block("router.serverStreaming(serviceName, \(name)) { (request: \(method.input), writer: ResponseWriter<\(method.output)>, context) in") {
                            $0.line("try await self.\(call)(request, writer: writer, context: context)")
                        }
                    case (true, false):
                        printer.block("router.clientStreaming(serviceName, \(name)) { (requests: RequestStream<\(method.input)>, context) -> \(method.output) in") {
                            $0.line("try await self.\(call)(requests, context: context)")
                        }
                    case (true, true):
                        printer.block("router.bidirectional(serviceName, \(name)) { (requests: RequestStream<\(method.input)>, writer: ResponseWriter<\(method.output)>, context) in") {
                            $0.line("try await self.\(call)(requests, writer: writer, context: context)")
                        }
                    }
                }
            }
        }
    }

    private func requestDefault(_ method: Method) -> String {
        method.emptyInput ? " = \(method.input)()" : ""
    }

    private func emitClient(_ methods: [Method], into printer: inout CodePrinter) {
        printer.doc("Typed client of `\(fullName)`: one method per RPC.")
        printer.block("package struct \(service.name)Client: Sendable {") { printer in
            printer.line("package static let serviceName = \"\(fullName)\"")
            printer.line()
            printer.line("package let client: any ClientTransport")
            printer.line()
            printer.line("package init(client: any ClientTransport) { self.client = client }")
            for method in methods {
                printer.line()
                printer.doc(methodDoc(method))
                let path = "\"/\(fullName)/\(method.descriptor.name)\""
                switch (method.descriptor.clientStreaming, method.descriptor.serverStreaming) {
                case (false, false):
                    printer.block("package func \(method.swiftName)(_ request: \(method.input)\(requestDefault(method)), options: CallOptions = CallOptions()) async throws -> \(method.output) {") {
                        $0.line("try await client.unary(path: \(path), request: request, options: options).message")
                    }
                case (false, true):
                    printer.block("package func \(method.swiftName)(_ request: \(method.input)\(requestDefault(method)), options: CallOptions = CallOptions()) async throws\n    -> StreamingCall<\(method.input), \(method.output)> {") {
                        $0.line("try await client.serverStreaming(path: \(path), request: request, options: options)")
                    }
                case (true, false):
                    printer.block("package func \(method.swiftName)(\n    options: CallOptions = CallOptions(),\n    _ body: (StreamingCall<\(method.input), \(method.output)>) async throws -> Void\n) async throws -> \(method.output) {") {
                        $0.line("try await client.clientStreaming(path: \(path), options: options, body).message")
                    }
                case (true, true):
                    printer.block("package func \(method.swiftName)(options: CallOptions = CallOptions()) async throws\n    -> StreamingCall<\(method.input), \(method.output)> {") {
                        $0.line("try await client.bidirectional(path: \(path), options: options)")
                    }
                }
            }
        }
    }
}
