import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// Uploads over the wire against the real executables: what becomes a blob, what is refused,
/// and resuming after a stream ends early or breaks.
@Suite(.mediaServices, .serialized)
struct UploadTests {
    @Test func upload_png_becomesBlobWithHashDimensionsAndShardedFile() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let bytes = ImageFixtures.png(width: 800, height: 600, size: 300_000)
        let blob = try await users.upload(bytes, as: user, chunk: 50_000)
        let sha = MediaUsers.sha256(bytes)
        #expect(blob.sha256 == sha)
        #expect(blob.size == Int64(bytes.count))
        #expect((blob.width, blob.height) == (800, 600))
        #expect(blob.contentType == "image/png")
        #expect(blob.ownerID == user.id)
        let path = "\(users.stack.storageDirectory)/blobs/\(sha.prefix(2))/\(sha.dropFirst(2).prefix(2))/\(sha)"
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == bytes)
        let read = try await users.media.getBlob(.init(blobID: blob.blobID), options: user.bearer)
        #expect(read.sha256 == sha)
    }

    @Test(arguments: [("image/jpeg", ImageFixtures.jpeg(width: 1024, height: 768), Int32(1024), Int32(768)),
                      ("image/heic", ImageFixtures.heic(width: 4032, height: 3024), Int32(4032), Int32(3024))])
    func upload_readsDimensionsFromHeaders(type: String, bytes: [UInt8], width: Int32, height: Int32) async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("momento")
        let blob = try await users.upload(bytes, type: type, as: user)
        #expect((blob.width, blob.height) == (width, height))
        #expect(blob.contentType == type)
    }

    @Test func upload_pngDeclaredAsJPEG_isTypeMismatchAndLeavesNothing() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let bytes = ImageFixtures.png()
        let status = try await users.media.createUpload(.init(kind: .photo, contentType: "image/jpeg", size: Int64(bytes.count)),
                                                        options: user.bearer)
        let refused = await reason { _ = try await users.send(bytes, to: status.uploadID, from: 0, as: user) }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.reason == "TYPE_MISMATCH")
        let gone = await reason { _ = try await users.media.getUpload(.init(uploadID: status.uploadID), options: user.bearer) }
        #expect(gone?.reason == "UPLOAD_NOT_FOUND")
        let parts = try FileManager.default.contentsOfDirectory(atPath: users.stack.storageDirectory + "/uploads")
        #expect(!parts.contains { $0.hasPrefix(status.uploadID) })
    }

    @Test func createUpload_refusesWhatTheKindDoesNotAllow() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let huge = await reason {
            _ = try await users.media.createUpload(.init(kind: .photo, contentType: "image/jpeg", size: 50 << 20), options: user.bearer)
        }
        #expect(huge?.code == .resourceExhausted)
        #expect(huge?.reason == "TOO_LARGE")
        let video = await reason {
            _ = try await users.media.createUpload(.init(kind: .photo, contentType: "video/mp4", size: 1_000), options: user.bearer)
        }
        #expect(video?.reason == "UNSUPPORTED_TYPE")
        let noKind = await reason {
            _ = try await users.media.createUpload(.init(contentType: "image/png", size: 1_000), options: user.bearer)
        }
        #expect(noKind?.reason == "INVALID_KIND")
        let empty = await reason {
            _ = try await users.media.createUpload(.init(kind: .photo, contentType: "image/png", size: 0), options: user.bearer)
        }
        #expect(empty?.reason == "INVALID_SIZE")
        let anonymous = await reason {
            _ = try await users.media.createUpload(.init(kind: .photo, contentType: "image/png", size: 10))
        }
        #expect(anonymous?.code == .unauthenticated)
    }

    /// A content type of any length is refused at once with a short message that does not echo
    /// it: a 1 MB one used to get no answer until the client's deadline, a 7 KB one a status
    /// too large for grpcio's headers.
    @Test(arguments: [7 << 10, 1 << 20])
    func createUpload_withAHugeContentType_isRefusedPromptly_withoutEchoingIt(length: Int) async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let started = ContinuousClock.now
        do {
            _ = try await users.media.createUpload(.init(kind: .photo, contentType: String(repeating: "x", count: length), size: 1_000),
                                                   options: .bearer(user.token, timeout: .seconds(10)))
            Issue.record("a content type of \(length) bytes was accepted")
        } catch let error as RPCError {
            #expect(error.code == .invalidArgument)
            #expect(error.reason == "UNSUPPORTED_TYPE")
            #expect(!error.message.contains("xxxxxxxx"))
            #expect(error.message.utf8.count <= 1024)
        }
        #expect(started.duration(to: .now) < .seconds(5))
    }

    @Test func upload_decompressionBomb_isRefusedFromItsHeader() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        // 60 KB that would decode to 100,000 × 100,000 pixels.
        let bomb = ImageFixtures.png(width: 100_000, height: 100_000, size: 60_000)
        let refused = await reason { _ = try await users.upload(bomb, as: user) }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.reason == "IMAGE_TOO_LARGE")
    }

    @Test func upload_moreBytesThanDeclared_isRefused() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let bytes = ImageFixtures.png(size: 20_000)
        let status = try await users.media.createUpload(.init(kind: .photo, contentType: "image/png", size: 10_000), options: user.bearer)
        let refused = await reason { _ = try await users.send(bytes, to: status.uploadID, from: 0, as: user, chunk: 4_000) }
        #expect(refused?.reason == "TOO_LARGE")
    }

    @Test func upload_endingEarly_keepsTheBytesAndResumes() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let bytes = ImageFixtures.jpeg(size: 200_000)
        let status = try await users.media.createUpload(.init(kind: .photo, contentType: "image/jpeg", size: Int64(bytes.count)),
                                                        options: user.bearer)
        let truncated = await reason {
            _ = try await users.send(Array(bytes.prefix(70_000)), to: status.uploadID, from: 0, as: user, chunk: 30_000)
        }
        #expect(truncated?.reason == "INCOMPLETE_UPLOAD")
        let held = try await users.media.getUpload(.init(uploadID: status.uploadID), options: user.bearer)
        #expect(held.receivedBytes == 70_000)
        #expect(held.blob == nil)
        let wrong = await reason { _ = try await users.send(bytes, to: status.uploadID, from: 0, as: user) }
        #expect(wrong?.reason == "WRONG_OFFSET")
        let blob = try await users.send(bytes, to: status.uploadID, from: 70_000, as: user, chunk: 40_000)
        #expect(blob.sha256 == MediaUsers.sha256(bytes))
        let done = try await users.media.getUpload(.init(uploadID: status.uploadID), options: user.bearer)
        #expect(done.blob?.blobID == blob.blobID)
        #expect(done.receivedBytes == Int64(bytes.count))
        // A retry of the finished stream answers with the same blob.
        let again = try await users.send(bytes, to: status.uploadID, from: 0, as: user)
        #expect(again.blobID == blob.blobID)
    }

    /// A complete upload takes no more bytes (media.proto): other bytes of the same size are
    /// FAILED_PRECONDITION UPLOAD_COMPLETE, a byte past the size RESOURCE_EXHAUSTED TOO_LARGE (both
    /// used to answer OK with the old blob, the new bytes dropped); an empty retry at the end, or
    /// the blob's own bytes again, still answers with the blob.
    @Test func upload_ofACompleteUpload_takesNoMoreBytes() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let bytes = ImageFixtures.jpeg(size: 100_000)
        let status = try await users.media.createUpload(.init(kind: .photo, contentType: "image/jpeg", size: Int64(bytes.count)),
                                                        options: user.bearer)
        let blob = try await users.send(bytes, to: status.uploadID, from: 0, as: user, chunk: 40_000)
        var other = bytes
        other[90_000] ^= 0xFF
        var refused = await reason { _ = try await users.send(other, to: status.uploadID, from: 0, as: user, chunk: 40_000) }
        #expect(refused?.code == .failedPrecondition)
        #expect(refused?.reason == "UPLOAD_COMPLETE")
        refused = await reason { _ = try await users.send(bytes + [0], to: status.uploadID, from: bytes.count, as: user) }
        #expect(refused?.code == .resourceExhausted)
        #expect(refused?.reason == "TOO_LARGE")
        refused = await reason { _ = try await users.send(Array(bytes.prefix(50_000)), to: status.uploadID, from: 0, as: user) }
        #expect(refused?.reason == "UPLOAD_COMPLETE", "a retry that stops short is not the finished stream")
        #expect(try await users.send(bytes, to: status.uploadID, from: bytes.count, as: user).blobID == blob.blobID)
        #expect(try await users.send(bytes, to: status.uploadID, from: 60_000, as: user).blobID == blob.blobID)
        let read = try await users.media.getBlob(.init(blobID: blob.blobID), options: user.bearer)
        #expect(read.sha256 == MediaUsers.sha256(bytes))
    }

    @Test func upload_brokenConnection_resumesFromWhatArrived() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let bytes = ImageFixtures.png(width: 1200, height: 900, size: 1_500_000)
        let status = try await users.media.createUpload(.init(kind: .photo, contentType: "image/png", size: Int64(bytes.count)),
                                                        options: user.bearer)
        let dropped = RPCClient(host: "127.0.0.1", port: users.stack.media.port)
        defer { dropped.close() }
        _ = try? await MediaClient(client: dropped).upload(options: user.bearer) { call in
            try await call.send(Media.UploadChunk(uploadID: status.uploadID, offset: 0, data: Array(bytes.prefix(500_000))))
            try await call.send(Media.UploadChunk(data: Array(bytes[500_000..<600_000])))
            // Wait until the server holds the bytes, then the stream breaks mid-upload (RST_STREAM).
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                let held = try await users.media.getUpload(.init(uploadID: status.uploadID), options: user.bearer)
                if held.receivedBytes == 600_000 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            call.cancel()
            throw CancellationError()
        }
        // The broken stream's lease goes as soon as the server notices; resume from what it holds.
        var blob: Media.Blob?
        let deadline = ContinuousClock.now + .seconds(10)
        while blob == nil, ContinuousClock.now < deadline {
            let held = try await users.media.getUpload(.init(uploadID: status.uploadID), options: user.bearer)
            #expect(held.receivedBytes == 600_000)
            do {
                blob = try await users.send(bytes, to: status.uploadID, from: Int(held.receivedBytes), as: user, chunk: 256_000)
            } catch let error as RPCError where error.reason == "UPLOAD_BUSY" {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                Issue.record("resume failed: \(error)")
                break
            }
        }
        #expect(blob?.sha256 == MediaUsers.sha256(bytes))
        #expect(blob?.width == 1200)
    }

    @Test func getUpload_ofAnotherAccount_isNotFound() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let owner = try await users.join("swivo")
        let other = try await users.join("swivo")
        let status = try await users.media.createUpload(.init(kind: .photo, contentType: "image/png", size: 100), options: owner.bearer)
        let hidden = await reason { _ = try await users.media.getUpload(.init(uploadID: status.uploadID), options: other.bearer) }
        #expect(hidden?.reason == "UPLOAD_NOT_FOUND")
        let stolen = await reason { _ = try await users.send(ImageFixtures.png(size: 100), to: status.uploadID, from: 0, as: other) }
        #expect(stolen?.reason == "UPLOAD_NOT_FOUND")
        let malformed = await reason { _ = try await users.media.getUpload(.init(uploadID: "nope"), options: owner.bearer) }
        #expect(malformed?.reason == "INVALID_UPLOAD_ID")
    }

    @Test func expiredUpload_isSwept_rowAndPart() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let status = try await users.media.createUpload(.init(kind: .photo, contentType: "image/png", size: 50_000), options: user.bearer)
        _ = await reason { _ = try await users.send(ImageFixtures.png(size: 10_000), to: status.uploadID, from: 0, as: user) }
        let part = users.stack.storageDirectory + "/uploads/\(status.uploadID).part"
        #expect(FileManager.default.fileExists(atPath: part))
        let admin = try await TestDatabase.makeAdminPool()
        defer { admin.close() }
        _ = try await admin.withConnection { connection in
            try await connection.execute("UPDATE media.uploads SET expires_at = now() - interval '1 second' WHERE id = $1::uuid",
                                         [.text(status.uploadID)])
        }
        let deadline = ContinuousClock.now + .seconds(10)
        var remaining = 1
        while remaining > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            remaining = try await admin.withConnection { connection in
                try await connection.query("SELECT count(*)::int FROM media.uploads WHERE id = $1::uuid", [.text(status.uploadID)])[0]
                    .decode(0, as: Int32.self)
            }.asInt
        }
        #expect(remaining == 0)
        #expect(!FileManager.default.fileExists(atPath: part))
        let gone = await reason { _ = try await users.media.getUpload(.init(uploadID: status.uploadID), options: user.bearer) }
        #expect(gone?.reason == "UPLOAD_NOT_FOUND")
    }
}

extension Int32 {
    fileprivate var asInt: Int { Int(self) }
}
