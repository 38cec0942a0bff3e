import Foundation
import GatewayClient
import Testing

/// The JSON file store: round trip, owner-only permissions, atomic replace, corrupt files.
@Suite struct FileTokenStoreTests {
    /// A new empty folder, removed after `body`.
    func withFolder<T>(_ body: (String) throws -> T) throws -> T {
        let folder = NSTemporaryDirectory() + "rv-tokens-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try body(folder)
    }

    func permissions(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func saveThenLoad_inAnotherStoreOnTheSameFile_roundTrips() throws {
        try withFolder { folder in
            let path = folder + "/session.json"
            let session = StoredSession(accountID: "acc", sessionID: "ses", accessToken: "access",
                                        accessTokenExpiresAt: Date(timeIntervalSince1970: 1_800_000_000.25),
                                        refreshToken: "refresh", refreshTokenExpiresAt: Date(timeIntervalSince1970: 1_900_000_000))
            try FileTokenStore(path: path).save(session)
            #expect(try FileTokenStore(path: path).load() == session)
        }
    }

    @Test func theFile_isReadableByItsOwnerOnly_evenReplacingAWorldReadableOne() throws {
        try withFolder { folder in
            let path = folder + "/session.json"
            #expect(FileManager.default.createFile(atPath: path, contents: Data("{}".utf8),
                                                   attributes: [.posixPermissions: 0o644]))
            try FileTokenStore(path: path).save(ScriptedIdentityService.stored(access: "a", refresh: "r"))
            #expect(try permissions(path) == 0o600)
        }
    }

    @Test func saves_replaceTheFileWhole_andLeaveNoTemporaryFiles() throws {
        try withFolder { folder in
            let store = FileTokenStore(path: folder + "/session.json")
            for index in 0..<5 {
                try store.save(ScriptedIdentityService.stored(access: "a\(index)", refresh: "r\(index)"))
            }
            #expect(try store.load()?.accessToken == "a4")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["session.json"])
        }
    }

    @Test(arguments: [
        "",
        "not json",
        #"{"version":1,"session":{"accountID":"a""#,
        #"{"version":2,"session":{}}"#,
        #"{"version":1}"#,
        String(repeating: " ", count: 70_000) + "{}",
    ])
    func aCorruptFile_readsAsSignedOut_andTheNextSaveReplacesIt(_ contents: String) throws {
        try withFolder { folder in
            let path = folder + "/session.json"
            try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
            let store = FileTokenStore(path: path)
            #expect(try store.load() == nil)
            try store.save(ScriptedIdentityService.stored(access: "a", refresh: "r"))
            #expect(try store.load()?.accessToken == "a")
        }
    }

    @Test func noFile_readsAsSignedOut_andClearIsIdempotent() throws {
        try withFolder { folder in
            let store = FileTokenStore(path: folder + "/session.json")
            #expect(try store.load() == nil)
            try store.clear()
            try store.save(ScriptedIdentityService.stored(access: "a", refresh: "r"))
            try store.clear()
            try store.clear()
            #expect(try store.load() == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    @Test func aMissingFolder_failsToSave_namingThePath() throws {
        let path = NSTemporaryDirectory() + "rv-no-such-folder-\(UUID().uuidString)/session.json"
        #expect {
            try FileTokenStore(path: path).save(ScriptedIdentityService.stored(access: "a", refresh: "r"))
        } throws: { error in
            "\(error)".contains("rv-no-such-folder") && !"\(error)".contains("\"a\"")
        }
    }

    @Test func inMemoryStore_roundTrips() {
        let store = InMemoryTokenStore()
        #expect(store.load() == nil)
        store.save(ScriptedIdentityService.stored(access: "a", refresh: "r"))
        #expect(store.load()?.refreshToken == "r")
        store.clear()
        #expect(store.load() == nil)
    }
}
