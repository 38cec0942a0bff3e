/// Why the generator refused a request; protoc prints it as `--rendezvous_out: <message>`.
struct GeneratorError: Error, CustomStringConvertible, Equatable {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
