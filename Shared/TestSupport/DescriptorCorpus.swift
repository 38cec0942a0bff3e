package import Foundation
package import Wire

/// The conformance check of generated Swift types against Python's protobuf, over values built
/// from the descriptors of the .proto files (`Tests/ContractsTests/Fixtures/descriptor_corpus.py`)
/// rather than from hand-written cases, so a message added to a .proto is covered the day it lands.
///
/// For every value Python builds: Swift decodes Python's bytes (unknown fields included) with the
/// registered type, encodes the result, decodes that again to the same value, and must write
/// exactly Python's deterministic bytes of the known fields (as many bytes where a map of several
/// entries may be written in another order); then Python decodes Swift's bytes and
/// must find the value it started from (Python → Swift → Python). A message declared in the files
/// that has no registered Swift type is a failure too.
package struct DescriptorCorpus: Sendable {
    /// `-I` roots for protoc, and the files (relative to a root, or `all` for every .proto under
    /// the first root) whose messages are checked.
    package var roots: [URL]
    package var files: [String]
    /// Swift type of each full proto name.
    package var registry: [String: any ProtoMessage.Type]

    package init(roots: [URL], files: [String], registry: [String: any ProtoMessage.Type]) {
        self.roots = roots
        self.files = files
        self.registry = registry
    }

    package static let script = RepositoryPaths.root.appendingPathComponent("Tests/ContractsTests/Fixtures/descriptor_corpus.py")

    /// One value of the corpus as Python wrote it.
    package struct Value: Decodable, Sendable, CustomStringConvertible {
        package var type: String
        package var name: String
        package var hex: String
        package var knownHex: String
        package var json: String
        /// Holds a map of two or more entries somewhere: protobuf leaves their order to each
        /// runtime (Python's upb writes integer keys in another order than Swift), so only the
        /// length and the meaning of the bytes are compared, not the bytes.
        package var maps: Bool

        enum CodingKeys: String, CodingKey {
            case type, name, hex, json, maps
            case knownHex = "known_hex"
        }

        package var description: String { "\(type) \(name)" }
    }

    /// What the check found: the values it ran and every disagreement, each naming its value.
    package struct Report: Sendable {
        package var values: [Value] = []
        package var failures: [String] = []
        package var types: Set<String> { Set(values.map(\.type)) }
    }

    package func check() async throws -> Report {
        var report = Report()
        report.values = try await corpus()
        var requests: [String] = []
        var swiftBytes: [String: [UInt8]] = [:]
        for type in report.types.sorted() where registry[type] == nil {
            report.failures.append("\(type) is declared in the .proto files but has no generated Swift type (run `make generate`)")
        }
        for value in report.values {
            guard let swiftType = registry[value.type] else { continue }
            guard let bytes = [UInt8](hexString: value.hex), let known = [UInt8](hexString: value.knownHex) else {
                report.failures.append("\(value): python wrote invalid hex")
                continue
            }
            do {
                let (encoded, stable) = try Self.roundTrip(swiftType, bytes)
                if !stable {
                    report.failures.append("\(value): decoding Swift's own encoding gives another value")
                }
                if value.maps ? encoded.count != known.count : encoded != known {
                    let offset = zip(encoded, known).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? Swift.min(encoded.count, known.count)
                    let window = { (bytes: [UInt8]) in Array(bytes[Swift.max(0, offset - 16)..<Swift.min(bytes.count, offset + 32)]).hexString }
                    report.failures.append("""
                        \(value): Swift's encoding (\(encoded.count) bytes) differs from Python's deterministic \
                        bytes (\(known.count)) at offset \(offset): Swift …\(window(encoded))…, Python …\(window(known))…
                        """)
                }
                swiftBytes[value.description] = encoded
                requests.append(try Self.jsonLine(["id": value.description, "type": value.type, "hex": encoded.hexString]))
            } catch {
                report.failures.append("\(value): Swift cannot decode Python's bytes: \(error)")
            }
        }
        let replies = try await python("decode", input: requests.joined(separator: "\n") + "\n")
        var answered: [String: DecodeReply] = [:]
        for line in replies.split(separator: UInt8(ascii: "\n")) {
            let reply = try JSONDecoder().decode(DecodeReply.self, from: Data(line))
            answered[reply.id ?? ""] = reply
        }
        for value in report.values where swiftBytes[value.description] != nil {
            guard let reply = answered[value.description] else {
                report.failures.append("\(value): no answer from Python")
                continue
            }
            if let error = reply.error {
                report.failures.append("\(value): Python cannot decode Swift's bytes: \(error)")
            } else if reply.json != value.json {
                report.failures.append("\(value): Python reads Swift's bytes as \(reply.json ?? "nothing"), not \(value.json)")
            }
        }
        return report
    }

    /// Decodes `bytes`, encodes the value, and says whether the encoding decodes to it again.
    private static func roundTrip<M: ProtoMessage>(_ type: M.Type, _ bytes: [UInt8]) throws -> ([UInt8], Bool) {
        let value = try M(serializedBytes: bytes)
        let encoded = value.serializedBytes()
        return (encoded, try M(serializedBytes: encoded) == value)
    }

    private struct DecodeReply: Decodable {
        var id: String?
        var json: String?
        var error: String?
    }

    private func corpus() async throws -> [Value] {
        let output = try await python("corpus", input: "")
        return try output.split(separator: UInt8(ascii: "\n")).map {
            try JSONDecoder().decode(Value.self, from: Data($0))
        }
    }

    private func python(_ mode: String, input: String) async throws -> Data {
        var arguments = [Self.script.path, mode]
        for root in roots { arguments += ["-I", root.path] }
        arguments += files
        let result = try await PythonScript.run(arguments, input: Data(input.utf8))
        guard result.exitCode == 0 else {
            throw SubprocessError(message: """
                descriptor_corpus.py \(mode) exited \(result.exitCode) (needs python3 with protobuf and \
                grpcio-tools: `make deps`): \(String(decoding: result.errors, as: UTF8.self))
                """)
        }
        return result.output
    }

    private static func jsonLine(_ fields: [String: String]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]), as: UTF8.self)
    }
}

/// `python3` with arguments and standard input, its output and errors kept apart; the blocking
/// reads run on threads of their own, never on Swift's cooperative pool.
package enum PythonScript {
    package struct Result: Sendable {
        package var exitCode: Int32
        package var output: Data
        package var errors: Data
    }

    package static func run(_ arguments: [String], input: Data, environment: [String: String] = [:]) async throws -> Result {
        let inputFile = FileManager.default.temporaryDirectory.appendingPathComponent("rv-python-\(UUID().uuidString)")
        try input.write(to: inputFile)
        defer { try? FileManager.default.removeItem(at: inputFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        async let errorBytes = Subprocess.onDedicatedThread { errors.fileHandleForReading.readDataToEndOfFile() }
        let outputBytes = await Subprocess.onDedicatedThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        return Result(exitCode: process.terminationStatus, output: outputBytes, errors: await errorBytes)
    }
}

extension [UInt8] {
    /// Lowercase hex, two digits a byte.
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses hex digits; nil for odd lengths or other characters.
    package init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

