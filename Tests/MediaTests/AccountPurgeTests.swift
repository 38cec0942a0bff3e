import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// Identity's AccountDeleted, followed by the real media executable: the account's blobs and
/// their bytes (with their renditions) go, except bytes another account's blob shares.
@Suite(.mediaServices, .serialized)
struct AccountPurgeTests {
    @Test func accountDeleted_removesBlobsRowsAndUnsharedBytes() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let leaving = try await users.join("momento")
        let staying = try await users.join("momento")
        let seed = Int.random(in: 0..<Int.max)
        let own = try PhotoFixtures.image(width: 300, height: 200, type: "png", seed: seed)
        let shared = try PhotoFixtures.image(width: 300, height: 200, type: "jpeg", seed: seed)
        #expect(own.count > 10_000)
        let ownBlob = try await users.upload(own, as: leaving)
        let sharedBlob = try await users.upload(shared, type: "image/jpeg", as: leaving)
        let keptBlob = try await users.upload(shared, type: "image/jpeg", as: staying)
        #expect(sharedBlob.sha256 == keptBlob.sha256)
        // Both contents rendered before the account goes (a GET waits for its renditions).
        for blob in [ownBlob, sharedBlob] {
            let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: leaving.bearer)
            #expect(try await Curl.get("http://127.0.0.1:\(users.stack.media.port)\(signed.url)", http2: true).status == 200)
        }
        let unfinished = try await users.media.createUpload(.init(kind: .photo, contentType: "image/png", size: 50_000),
                                                            options: leaving.bearer)
        _ = await reason { _ = try await users.send(Array(own.prefix(10_000)), to: unfinished.uploadID, from: 0, as: leaving) }

        _ = try await users.identity.deleteAccount(.init(), options: leaving.bearer)

        let deadline = ContinuousClock.now + .seconds(15)
        var gone = false
        while !gone, ContinuousClock.now < deadline {
            gone = await reason { _ = try await users.media.getBlob(.init(blobID: ownBlob.blobID), options: staying.bearer) }?
                .reason == "BLOB_NOT_FOUND"
            if !gone { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(gone, "media never applied AccountDeleted")
        let sharedGone = await reason { _ = try await users.media.getBlob(.init(blobID: sharedBlob.blobID), options: staying.bearer) }
        #expect(sharedGone?.reason == "BLOB_NOT_FOUND")
        let storage = users.stack.storageDirectory
        func path(_ sha: String) -> String { "\(storage)/blobs/\(sha.prefix(2))/\(sha.dropFirst(2).prefix(2))/\(sha)" }
        #expect(!FileManager.default.fileExists(atPath: path(ownBlob.sha256)))
        for side in [0, 320, 1080] as [Int32] {
            #expect(!FileManager.default.fileExists(atPath: path(RenditionTests.key(ownBlob.sha256, side: side))))
            #expect(FileManager.default.fileExists(atPath: path(RenditionTests.key(keptBlob.sha256, side: side))))
        }
        #expect(!FileManager.default.fileExists(atPath: storage + "/uploads/\(unfinished.uploadID).part"))
        // The other account's blob of the same bytes is untouched and still downloads.
        #expect(FileManager.default.contents(atPath: path(keptBlob.sha256)).map(Array.init) == shared)
        let signed = try await users.media.getDownloadURL(.init(blobID: keptBlob.blobID), options: staying.bearer)
        let response = try await Curl.get("http://127.0.0.1:\(users.stack.media.port)\(signed.url)", http2: true)
        #expect(response.status == 200)
        #expect(ServedImage.jpegSize(response.body).map { [$0.width, $0.height] } == [300, 200])
    }

    @Test func accountDeleted_leavesMomentoEvents_withExactCounters_andTakesItsOwnEvents() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let creator = try await users.join("momento")
        let leaving = try await users.join("momento")
        var request = Momento.CreateEventRequest()
        request.title = "Gig"
        request.releaseAt = Timestamp(seconds: Int64(Date().timeIntervalSince1970) + 3_600)
        let event = try await users.momento.createEvent(request, options: creator.bearer)
        let own = try await users.momento.createEvent(request, options: leaving.bearer)
        _ = try await users.momento.joinEvent(.init(joinCode: event.joinCode), options: leaving.bearer)
        for seed in [20, 21] as [UInt8] {
            let blob = try await users.upload(ImageFixtures.png(size: 3_000, seed: seed), as: leaving)
            _ = try await users.momento.addEventPhoto(.init(eventID: event.eventID, blobID: blob.blobID), options: leaving.bearer)
        }
        let before = try await users.momento.getEvent(.init(eventID: event.eventID), options: creator.bearer)
        #expect((before.memberCount, before.photoCount) == (2, 2))

        _ = try await users.identity.deleteAccount(.init(), options: leaving.bearer)

        let deadline = ContinuousClock.now + .seconds(15)
        var after = before
        while ContinuousClock.now < deadline {
            after = try await users.momento.getEvent(.init(eventID: event.eventID), options: creator.bearer)
            if after.memberCount == 1 { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect((after.memberCount, after.photoCount) == (1, 0))
        let gone = await reason { _ = try await users.momento.previewEvent(.init(joinCode: own.joinCode)) }
        #expect(gone?.reason == "JOIN_CODE_NOT_FOUND")
    }
}
