import Foundation
import TestSupport
import Testing

/// The `GatewayClient` product is what an iOS app adds with SwiftPM, so its build must reach no
/// C library (nghttp2, OpenSSL, libpq, zlib, curl, vips: none exists in an iOS SDK) and no
/// Linux-only module. Read from the manifest as SwiftPM evaluates it (`swift package
/// dump-package`, with a scratch folder of its own so a build or test run holding `.build`
/// does not block it), and from the sources' imports, which SwiftPM on Linux does not police
/// (a target can import any module already built).
@Suite struct PackageGraphTests {
    static let cLibraries: Set = ["CNGHTTP2", "COpenSSL", "CLibPQ", "CZlib", "CCurl", "CVips", "CLinux"]
    /// Modules of the toolchain an app may import besides the product's own targets.
    static let systemModules: Set = ["Foundation", "FoundationNetworking", "Synchronization", "Glibc", "Darwin", "Musl"]

    @Test func gatewayClientProduct_buildsFromPureSwiftTargetsOnly() async throws {
        let manifest = try await Manifest.load()
        let targets = try manifest.closure(ofProduct: "GatewayClient")
        #expect(targets == ["GatewayClient", "ContractTypes", "RPCCore", "Wire"])
        #expect(targets.isDisjoint(with: Self.cLibraries))
        for name in targets {
            #expect(manifest.targets[name]?.type == "regular", "\(name) is not a plain Swift target")
            #expect(manifest.targets[name]?.products.isEmpty == true, "\(name) depends on another package's product")
        }
    }

    @Test func gatewayClientSources_importOnlyTheProductsModules() async throws {
        let manifest = try await Manifest.load()
        let targets = try manifest.closure(ofProduct: "GatewayClient")
        let allowed = targets.union(Self.systemModules)
        for name in targets.sorted() {
            let folder = RepositoryPaths.root.appendingPathComponent(try #require(manifest.targets[name]?.path))
            for (file, module) in try Self.imports(under: folder) {
                #expect(allowed.contains(module), "\(file) imports \(module), which an app's build of GatewayClient lacks")
            }
        }
    }

    /// The same reading finds the C libraries where they are: the check can fail.
    @Test func http2Product_reachesNGHTTP2AndOpenSSL() async throws {
        let targets = try await Manifest.load().closure(ofProduct: "GatewayClientHTTP2")
        #expect(targets.isSuperset(of: ["GatewayClient", "RPC", "HTTP2", "CNGHTTP2", "COpenSSL", "CZlib"]))
    }

    /// `import X` lines (any access level, `@_exported` too) of the Swift files under `folder`.
    static func imports(under folder: URL) throws -> [(file: String, module: String)] {
        var found: [(String, String)] = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
                guard let index = words.firstIndex(of: "import"), index <= 1, index + 1 < words.count else { continue }
                if index == 1, !["public", "package", "internal", "private", "fileprivate"].contains(words[0]) { continue }
                found.append((url.lastPathComponent, String(words[index + 1])))
            }
        }
        return found
    }
}

/// The parts of `swift package dump-package` these tests read.
struct Manifest {
    struct Target {
        var type: String
        var path: String
        /// Targets of this package it depends on.
        var targets: [String]
        /// Products of other packages it depends on.
        var products: [String]
    }

    var targets: [String: Target]
    var products: [String: [String]]

    static func load() async throws -> Manifest {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rv-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let json = scratch.appendingPathComponent("manifest.json")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let script = """
        PATH="$PATH:/opt/swift/usr/bin" swift package --package-path "$1" --scratch-path "$2" dump-package > "$3"
        """
        let run = try await Subprocess.run("/bin/bash", ["-c", script, "dump", RepositoryPaths.root.path,
                                                         scratch.appendingPathComponent("build").path, json.path])
        try #require(run.exitCode == 0, "swift package dump-package failed: \(run.output)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
        var manifest = Manifest(targets: [:], products: [:])
        for product in object?["products"] as? [[String: Any]] ?? [] {
            if let name = product["name"] as? String { manifest.products[name] = product["targets"] as? [String] ?? [] }
        }
        for target in object?["targets"] as? [[String: Any]] ?? [] {
            guard let name = target["name"] as? String else { continue }
            var entry = Target(type: target["type"] as? String ?? "", path: target["path"] as? String ?? "Sources/\(name)",
                               targets: [], products: [])
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                if let byName = dependency["byName"] as? [Any], let first = byName.first as? String {
                    entry.targets.append(first)
                } else if let target = dependency["target"] as? [Any], let first = target.first as? String {
                    entry.targets.append(first)
                } else if let product = dependency["product"] as? [Any], let first = product.first as? String {
                    entry.products.append(first)
                }
            }
            manifest.targets[name] = entry
        }
        return manifest
    }

    /// Every target of this package that building `product` compiles.
    func closure(ofProduct product: String) throws -> Set<String> {
        var pending = try #require(products[product], "no product \(product)")
        var seen: Set<String> = []
        while let name = pending.popLast() {
            guard seen.insert(name).inserted else { continue }
            pending += try #require(targets[name], "no target \(name)").targets
        }
        return seen
    }
}
