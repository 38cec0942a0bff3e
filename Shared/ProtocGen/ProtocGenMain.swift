#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Wire

/// `protoc-gen-rendezvous`: the protoc plugin that writes Shared/Contracts/Generated from
/// proto-docs/ (`make generate`). protoc sends a CodeGeneratorRequest on standard input and
/// reads the CodeGeneratorResponse from standard output.
@main
enum ProtocGenMain {
    static func main() {
        var input: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            input.append(contentsOf: buffer[0..<count])
        }
        let response: CodeGeneratorResponse
        do {
            var limits = DecodingLimits.default
            limits.maxMessageSize = Int(Int32.max)
            let request = try CodeGeneratorRequest(serializedBytes: input, limits: limits)
            response = Generator.respond(to: request)
        } catch {
            var failed = CodeGeneratorResponse()
            failed.error = "protoc-gen-rendezvous could not read the request: \(error)"
            response = failed
        }
        var output = response.serializedBytes()[...]
        while !output.isEmpty {
            let written = output.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if written <= 0 { exit(1) }
            output = output.dropFirst(written)
        }
    }
}
