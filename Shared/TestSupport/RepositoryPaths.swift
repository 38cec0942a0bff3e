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
}
