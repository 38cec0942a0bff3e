package import Foundation

/// Paths inside the repository, found from this source file's location.
package enum RepositoryPaths {
    /// The repository root (the folder holding Package.swift).
    package static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The Python interop fixtures (grpcio client and server).
    package static var interopFixtures: URL {
        root.appendingPathComponent("Tests/InteropTests/Fixtures")
    }

    /// The package's executable `name` as `swift build` left it: in `RV_BIN_DIR` when set,
    /// beside the running test bundle, or in `.build/debug`.
    package static func builtExecutable(_ name: String) throws -> String {
        var candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path,
            root.appendingPathComponent(".build/debug/\(name)").path,
        ]
        if let folder = ProcessInfo.processInfo.environment["RV_BIN_DIR"] {
            candidates.insert(URL(fileURLWithPath: folder).appendingPathComponent(name).path, at: 0)
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw SubprocessError(message: "\(name) is not built (looked at \(candidates)); run `swift build` first")
        }
        return found
    }
}
