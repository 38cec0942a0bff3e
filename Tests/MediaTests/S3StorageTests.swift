import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// The S3 backend (RV_MEDIA_STORAGE=s3) over the wire: the real media executable against moto
/// in server mode, signatures checked. What users see is what the local backend gives them;
/// what lands in the bucket is one object per content under its sharded key.
@Suite(.s3Storage, .serialized)
struct S3StorageTests {
    static func key(_ sha: String) -> String { "blobs/\(sha.prefix(2))/\(sha.dropFirst(2).prefix(2))/\(sha)" }

    @Test func photo_isOneObjectUnderItsShardedKey_andDownloadsByRangeFromTheBucket() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let user = try await users.join("swivo")
        let bytes = RealPNG.make(width: 800, height: 600, size: 300_000, seed: 31)
        let blob = try await users.upload(bytes, as: user, chunk: 50_000)
        #expect(blob.sha256 == MediaUsers.sha256(bytes))
        #expect((blob.width, blob.height) == (800, 600))
        #expect(try await s3.objects()[Self.key(blob.sha256)] == bytes.count)
        // Nothing of it stays on media's disk: no local blob, no staged part.
        let local = users.stack.storageDirectory
        #expect(!FileManager.default.fileExists(atPath: "\(local)/\(Self.key(blob.sha256))"))
        let staged = try FileManager.default.contentsOfDirectory(atPath: local + "/uploads")
        #expect(!staged.contains { $0.hasPrefix(blob.blobID) })

        // A photo is served as its rendition (media reads the original from the bucket to make
        // it, and keeps the rendition there too): whole over HTTP/1.1, then a range over HTTP/2.
        let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: user.bearer)
        let whole = try await Curl.get("http://127.0.0.1:\(users.stack.mediaAdminPort)\(signed.url)", http2: false)
        #expect(whole.status == 200)
        #expect(RealPNG.dimensions(whole.body).map { [$0.width, $0.height] } == [800, 600])
        #expect(try await s3.requests().contains("GET /\(S3Server.bucket)/\(Self.key(blob.sha256))"))
        let before = try await s3.requests().count
        let url = "http://127.0.0.1:\(users.stack.media.port)\(signed.url)"
        let ranged = try await Curl.get(url, http2: true, headers: ["Range: bytes=1000-1999"])
        #expect(ranged.status == 206)
        #expect(ranged.headers["content-range"] == "bytes 1000-1999/\(whole.body.count)")
        #expect(ranged.body == Array(whole.body[1000..<2000]))
        #expect(try await s3.requests().dropFirst(before).contains { $0.hasPrefix("GET /\(S3Server.bucket)/blobs/") },
                "the range came from the bucket")
        #expect(try await HTTPProbe.get("/readyz", port: users.stack.mediaAdminPort).status == 200)
    }

    @Test func videoSelfie_interruptedAndResumed_goesUpInParts() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let applicant = try await users.join("firstdate")
        let host = try await users.join("firstdate", role: "host")
        let bytes = ImageFixtures.mp4(size: 12 << 20)
        let status = try await users.media.createUpload(.init(kind: .videoSelfie, contentType: "video/mp4", size: Int64(bytes.count)),
                                                        options: applicant.bearer)
        let cut = 6 << 20
        let truncated = await reason {
            _ = try await users.send(Array(bytes.prefix(cut)), to: status.uploadID, from: 0, as: applicant, chunk: 1 << 20)
        }
        #expect(truncated?.reason == "INCOMPLETE_UPLOAD")
        let held = try await users.media.getUpload(.init(uploadID: status.uploadID), options: applicant.bearer)
        #expect(held.receivedBytes == Int64(cut))
        let before = try await s3.requests().count
        let blob = try await users.send(bytes, to: status.uploadID, from: cut, as: applicant, chunk: 1 << 20)
        #expect(blob.sha256 == MediaUsers.sha256(bytes))
        let key = Self.key(blob.sha256)
        #expect(try await s3.objects()[key] == bytes.count)
        let sent = try await s3.requests().dropFirst(before)
        // 12 MiB in 5 MiB parts: three UploadParts between the create and the complete.
        #expect(sent.filter { $0.hasPrefix("POST /\(S3Server.bucket)/\(key)?uploads") }.count == 1)
        #expect(sent.filter { $0.hasPrefix("PUT /\(S3Server.bucket)/\(key)?") && $0.contains("partNumber=") }.count == 3)
        #expect(sent.filter { $0.hasPrefix("POST /\(S3Server.bucket)/\(key)?uploadId=") }.count == 1)
        #expect(try await s3.unfinishedMultipartUploads() == 0)

        // A range across the first part's end comes back as the bytes that were sent.
        let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: host.bearer)
        let start = (5 << 20) - 10
        let ranged = try await Curl.get("http://127.0.0.1:\(users.stack.media.port)\(signed.url)", http2: true,
                                        headers: ["Range: bytes=\(start)-\(start + 19)"])
        #expect(ranged.status == 206)
        #expect(ranged.body == Array(bytes[start..<(start + 20)]))
    }

    @Test func multipartFailingMidway_isAborted_andTheUploadResumesLater() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let applicant = try await users.join("firstdate")
        let bytes = ImageFixtures.mp4(size: 11 << 20) + [1]
        let status = try await users.media.createUpload(.init(kind: .videoSelfie, contentType: "video/mp4", size: Int64(bytes.count)),
                                                        options: applicant.bearer)
        // The second part meets 503 on every attempt: the commit gives up and aborts the upload.
        try await s3.failNext(3, matching: "partNumber=2")
        let failed = await reason { _ = try await users.send(bytes, to: status.uploadID, from: 0, as: applicant, chunk: 1 << 20) }
        #expect(failed?.code == .unavailable)
        #expect(failed?.reason == "STORAGE_UNAVAILABLE")
        let key = Self.key(MediaUsers.sha256(bytes))
        #expect(try await s3.requests().contains { $0.hasPrefix("DELETE /\(S3Server.bucket)/\(key)?uploadId=") })
        #expect(try await s3.unfinishedMultipartUploads() == 0)
        #expect(try await s3.objects()[key] == nil)
        // Every byte stayed with media: the client finishes with no data to send.
        let held = try await users.media.getUpload(.init(uploadID: status.uploadID), options: applicant.bearer)
        #expect(held.receivedBytes == Int64(bytes.count))
        let blob = try await users.media.upload(options: applicant.bearer) { call in
            try await call.send(Media.UploadChunk(uploadID: status.uploadID, offset: Int64(bytes.count)))
        }
        #expect(blob.sha256 == MediaUsers.sha256(bytes))
        #expect(try await s3.objects()[key] == bytes.count)
    }

    @Test func concurrentUploads_eachLandInTheBucket() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let user = try await users.join("swivo")
        let blobs = try await withThrowingTaskGroup(of: (Media.Blob, Int).self) { group in
            for seed in 50..<58 {
                group.addTask {
                    let bytes = ImageFixtures.jpeg(size: 200_000 + seed, seed: UInt8(seed))
                    return (try await users.upload(bytes, type: "image/jpeg", as: user), bytes.count)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let objects = try await s3.objects()
        #expect(blobs.count == 8)
        for (blob, size) in blobs { #expect(objects[Self.key(blob.sha256)] == size) }
    }

    @Test func virtualHostAddressing_putsTheBucketInTheHostName() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        // libcurl resolves any *.localhost name to the loopback address, so `media-tests.localhost`
        // reaches moto, which reads the bucket from the Host header.
        let virtual = try await users.stack.startAnotherMedia(environment: [
            "RV_MEDIA_S3_ADDRESSING": "virtual-host", "RV_MEDIA_S3_ENDPOINT": "http://localhost:\(s3.port)",
        ])
        let client = RPCClient(host: "127.0.0.1", port: virtual.port)
        defer { client.close() }
        let viaHost = MediaUsers(identity: users.identity, media: MediaClient(client: client), photos: users.photos,
                                 momento: users.momento, stack: users.stack)
        let user = try await users.join("swivo")
        let bytes = RealPNG.make(width: 64, height: 48, size: 25_000, seed: 41)
        let blob = try await viaHost.upload(bytes, as: user)
        let key = Self.key(blob.sha256)
        #expect(try await s3.objects()[key] == bytes.count)
        #expect(try await s3.requests().contains("PUT /\(key)"))
        let signed = try await viaHost.media.getDownloadURL(.init(blobID: blob.blobID), options: user.bearer)
        let served = try await Curl.get("http://127.0.0.1:\(virtual.port)\(signed.url)", http2: true)
        #expect(served.status == 200)
        #expect(RealPNG.dimensions(served.body).map { [$0.width, $0.height] } == [64, 48])
        await virtual.stop()
    }

    @Test func sameContentTwice_isStoredOnce() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let first = try await users.join("momento")
        let second = try await users.join("momento")
        let bytes = ImageFixtures.jpeg(size: 120_000, seed: 33)
        let one = try await users.upload(bytes, type: "image/jpeg", as: first)
        let two = try await users.upload(bytes, type: "image/jpeg", as: second)
        #expect(one.blobID != two.blobID)
        #expect(one.sha256 == two.sha256)
        let key = Self.key(one.sha256)
        #expect(try await s3.objects().keys.filter { $0.hasSuffix(one.sha256) } == [key])
        // The second upload found the object and sent no bytes.
        #expect(try await s3.requests().filter { $0 == "PUT /\(S3Server.bucket)/\(key)" }.count == 1)
    }

    @Test func accountDeleted_removesItsObjects_butNotSharedOnes() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let leaving = try await users.join("momento")
        let staying = try await users.join("momento")
        let own = try await users.upload(ImageFixtures.png(size: 40_000, seed: 34), as: leaving)
        let shared = ImageFixtures.png(size: 40_000, seed: 35)
        _ = try await users.upload(shared, as: leaving)
        let kept = try await users.upload(shared, as: staying)
        #expect(try await s3.objects()[Self.key(own.sha256)] != nil)

        _ = try await users.identity.deleteAccount(.init(), options: leaving.bearer)

        let deadline = ContinuousClock.now + .seconds(15)
        var objects = try await s3.objects()
        while objects[Self.key(own.sha256)] != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            objects = try await s3.objects()
        }
        #expect(objects[Self.key(own.sha256)] == nil, "media never deleted the account's object")
        #expect(objects[Self.key(kept.sha256)] == shared.count)
        #expect(try await s3.requests().contains("DELETE /\(S3Server.bucket)/\(Self.key(own.sha256))"))
    }

    @Test func slowDownAnswers_areRetried() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let user = try await users.join("swivo")
        let bytes = ImageFixtures.png(size: 30_000, seed: 36)
        // HEAD and PUT of the commit each meet one 503 at most: within three attempts.
        try await s3.failNext(2, matching: Self.key(MediaUsers.sha256(bytes)))
        let blob = try await users.upload(bytes, as: user)
        #expect(try await s3.objects()[Self.key(blob.sha256)] == bytes.count)
    }

    @Test func timeouts_areRetried_andAStoreThatKeepsStallingIsUnavailable() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let impatient = try await users.stack.startAnotherMedia(environment: ["RV_MEDIA_S3_TIMEOUT_MS": "800"])
        let client = RPCClient(host: "127.0.0.1", port: impatient.port)
        defer { client.close() }
        let viaImpatient = MediaUsers(identity: users.identity, media: MediaClient(client: client), photos: users.photos,
                                      momento: users.momento, stack: users.stack)
        let user = try await users.join("swivo")
        // One answer 2.5 s late: that attempt times out after 800 ms (room for a loaded machine's
        // ordinary answers), the next one goes through.
        // Stalls match the object's key: the rendition job's own requests do not use them up.
        let bytes = ImageFixtures.png(size: 20_000, seed: 42)
        try await s3.stallNext(1, by: .milliseconds(2500), matching: Self.key(MediaUsers.sha256(bytes)))
        let blob = try await viaImpatient.upload(bytes, as: user)
        #expect(try await s3.objects()[Self.key(blob.sha256)] == bytes.count)
        // Every attempt late: UNAVAILABLE, saying it timed out.
        let stalled = ImageFixtures.png(size: 20_000, seed: 43)
        try await s3.stallNext(3, by: .milliseconds(2500), matching: Self.key(MediaUsers.sha256(stalled)))
        do {
            _ = try await viaImpatient.upload(stalled, as: user)
            Issue.record("an upload went through a stalled store")
        } catch let error as RPCError {
            #expect(error.code == .unavailable)
            #expect(error.reason == "STORAGE_UNAVAILABLE")
            #expect(error.message.contains("timed out"), "\(error.message)")
        }
        try await s3.stallNext(0, by: .zero)
        await impatient.stop()
    }

    @Test func wrongSecretKey_isStorageUnavailable_andTheBytesWaitForAResume() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let adminPort = try LocalPort.free()
        let wrong = try await users.stack.startAnotherMedia(
            environment: ["RV_MEDIA_S3_SECRET_ACCESS_KEY": String(s3.secretAccessKey.reversed())], adminPort: adminPort)
        let client = RPCClient(host: "127.0.0.1", port: wrong.port)
        defer { client.close() }
        let misconfigured = MediaUsers(identity: users.identity, media: MediaClient(client: client), photos: users.photos,
                                       momento: users.momento, stack: users.stack)
        let user = try await users.join("swivo")
        let bytes = ImageFixtures.png(size: 50_000, seed: 37)
        let status = try await misconfigured.media.createUpload(.init(kind: .photo, contentType: "image/png", size: Int64(bytes.count)),
                                                                options: user.bearer)
        do {
            _ = try await misconfigured.send(bytes, to: status.uploadID, from: 0, as: user)
            Issue.record("an upload went through with a wrong secret key")
        } catch let error as RPCError {
            #expect(error.code == .unavailable)
            #expect(error.reason == "STORAGE_UNAVAILABLE")
            #expect(error.message.contains("HTTP 403"), "\(error.message)")
        }
        let ready = try await HTTPProbe.get("/readyz", port: adminPort)
        #expect(ready.status == 503)
        #expect(ready.body.contains("storage:") && ready.body.contains("SignatureDoesNotMatch"), "\(ready.body)")
        // Still serving, every byte kept: a well-configured replica finishes the upload.
        let held = try await misconfigured.media.getUpload(.init(uploadID: status.uploadID), options: user.bearer)
        #expect(held.receivedBytes == Int64(bytes.count))
        let blob = try await users.media.upload(options: user.bearer) { call in
            try await call.send(Media.UploadChunk(uploadID: status.uploadID, offset: Int64(bytes.count)))
        }
        #expect(blob.sha256 == MediaUsers.sha256(bytes))
        #expect(try await s3.objects()[Self.key(blob.sha256)] == bytes.count)
        await wrong.stop()
    }

    @Test func storeDown_isStorageUnavailable_andMediaIsNotReady() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let s3 = try S3Server.running
        let user = try await users.join("swivo")
        let stored = try await users.upload(RealPNG.make(width: 40, height: 30, size: 20_000, seed: 38), as: user)
        let adminPort = try LocalPort.free()
        // Nothing listens on a freshly freed port: every request is refused.
        let down = try await users.stack.startAnotherMedia(
            environment: ["RV_MEDIA_S3_ENDPOINT": "http://127.0.0.1:\(try LocalPort.free())"], adminPort: adminPort)
        let client = RPCClient(host: "127.0.0.1", port: down.port)
        defer { client.close() }
        let media = MediaClient(client: client)
        let bytes = ImageFixtures.png(size: 20_000, seed: 39)
        let status = try await media.createUpload(.init(kind: .photo, contentType: "image/png", size: Int64(bytes.count)),
                                                  options: user.bearer)
        let refused = await reason {
            _ = try await media.upload(options: user.bearer) { call in
                try await call.send(Media.UploadChunk(uploadID: status.uploadID, offset: 0, data: bytes))
            }
        }
        #expect(refused?.code == .unavailable)
        #expect(refused?.reason == "STORAGE_UNAVAILABLE")
        let ready = try await HTTPProbe.get("/readyz", port: adminPort)
        #expect(ready.status == 503)
        #expect(ready.body.contains("storage:"), "\(ready.body)")
        // Downloads through it fail softly too, and a store that answers only 503s is as down.
        let signed = try await media.getDownloadURL(.init(blobID: stored.blobID), options: user.bearer)
        #expect(try await Curl.get("http://127.0.0.1:\(down.port)\(signed.url)", http2: true).status == 503)
        let refusedBytes = ImageFixtures.png(size: 20_000, seed: 40)
        try await s3.failNext(3, matching: Self.key(MediaUsers.sha256(refusedBytes)))
        let slowDown = await reason {
            _ = try await users.upload(refusedBytes, as: user)
        }
        #expect(slowDown?.reason == "STORAGE_UNAVAILABLE")
        try await s3.failNext(0)
        await down.stop()
    }
}
