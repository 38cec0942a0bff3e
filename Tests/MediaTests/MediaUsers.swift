import Contracts
import CryptoCore
import Foundation
import RPC
import TestSupport
import Testing

/// One signed-in person: their account and access token.
struct User: Sendable {
    let id: String
    let app: String
    let token: String
    var refreshToken = ""

    var bearer: CallOptions { .bearer(token, timeout: .seconds(10)) }
}

/// Signs people up through identity and talks to media as them.
struct MediaUsers: Sendable {
    let identity: IdentityClient
    let media: MediaClient
    let photos: ProfilePhotosClient
    let momento: MomentoEventsClient
    let stack: MediaStack

    static func make() throws -> MediaUsers {
        let stack = try MediaHarness.running
        let media = RPCClient(host: "127.0.0.1", port: stack.media.port)
        return MediaUsers(identity: IdentityClient(client: RPCClient(host: "127.0.0.1", port: stack.identity.port)),
                          media: MediaClient(client: media), photos: ProfilePhotosClient(client: media),
                          momento: MomentoEventsClient(client: media), stack: stack)
    }

    func close() {
        identity.client.close()
        media.client.close()
    }

    /// A new account of `app` (anonymous where the app offers it, else email), admitted in an
    /// invite-only app (`TestAdmission`).
    func join(_ app: String) async throws -> User {
        var session: Identity.AuthSession
        if app == "elite" || app == "firstdate" {
            session = try await identity.signUpWithEmail(.init(app: app, email: "\(TestDatabase.uniqueName("media"))@example.com",
                                                               password: "correct horse battery staple", deviceName: "tests"))
        } else {
            session = try await identity.signInAnonymously(.init(app: app, deviceName: "tests"))
        }
        if session.account?.membershipStatus == "waitlisted" {
            try await TestAdmission.admit(try #require(session.account).id)
            session = try await identity.refreshSession(.init(refreshToken: session.refreshToken))
        }
        return User(id: try #require(session.account).id, app: app, token: session.accessToken, refreshToken: session.refreshToken)
    }

    /// A new account of `app` holding `role`, granted the way an operator does (`identity grant-role`).
    func join(_ app: String, role: String) async throws -> User {
        let user = try await join(app)
        let result = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", app, "--account-id", user.id, "--role", role],
            environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
        guard result.exitCode == 0 else { throw SubprocessError(message: "identity grant-role: \(result.output)") }
        let session = try await identity.refreshSession(.init(refreshToken: user.refreshToken))
        return User(id: user.id, app: app, token: session.accessToken, refreshToken: session.refreshToken)
    }

    /// Declares an upload of `bytes` and streams them in chunks of `chunk` bytes.
    func upload(_ bytes: [UInt8], kind: Media.BlobKind = .photo, type: String = "image/png", as user: User,
                chunk: Int = 64 << 10) async throws -> Media.Blob {
        let status = try await media.createUpload(.init(kind: kind, contentType: type, size: Int64(bytes.count)), options: user.bearer)
        return try await send(bytes, to: status.uploadID, from: 0, as: user, chunk: chunk)
    }

    /// Streams `bytes[offset...]` into upload `id`.
    func send(_ bytes: [UInt8], to id: String, from offset: Int, as user: User, chunk: Int = 64 << 10) async throws -> Media.Blob {
        try await media.upload(options: user.bearer) { call in
            var position = offset
            try await call.send(Media.UploadChunk(uploadID: id, offset: Int64(offset),
                                                  data: Array(bytes[position..<min(position + chunk, bytes.count)])))
            position = min(position + chunk, bytes.count)
            while position < bytes.count {
                try await call.send(Media.UploadChunk(data: Array(bytes[position..<min(position + chunk, bytes.count)])))
                position += chunk
            }
        }
    }

    static func sha256(_ bytes: [UInt8]) -> String { SHA256Digest.hash(bytes).map { String(format: "%02x", $0) }.joined() }
}
