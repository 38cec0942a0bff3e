import Foundation
@testable import CryptoCore

/// Runs Tests/CryptoCoreTests/Fixtures/jose_crosscheck.py: joserfc and `cryptography` as an
/// independent implementation to check ours against.
enum PythonJOSE {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/jose_crosscheck.py").path

    /// Whether python3 with joserfc and cryptography is installed.
    static let isAvailable: Bool = {
        (try? run(executable: "/usr/bin/env", ["python3", "-c", "import joserfc, cryptography"], input: [])) != nil
    }()

    /// Sends `request` as JSON to `command`, returns its JSON reply.
    static func call(_ command: String, _ request: JSONValue) throws -> [String: JSONValue] {
        let output = try run(executable: "/usr/bin/env", ["python3", script, command], input: request.serialized())
        return try JSONValue.parseObject(output)
    }

    private static func run(executable: String, _ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CryptoError(.libraryFailure, "python3 \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return Array(output)
    }
}
