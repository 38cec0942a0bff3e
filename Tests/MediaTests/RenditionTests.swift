import Contracts
import CryptoCore
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// What media serves for photos: renditions made once per content with libvips, rotated as the
/// EXIF says and without the EXIF (GPS), XMP or any other metadata; fetched with curl from the
/// real executables, counted in the real Postgres.
@Suite(.mediaServices, .serialized)
struct RenditionTests {
    static func url(_ path: String, port: Int) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The storage key (and ETag) of a content's rendition.
    static func key(_ sha256: String, side: Int32) -> String {
        SHA256Digest.hash(Array("rendition:\(sha256):\(side)".utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test func photoWithLocation_isServedRotated_withoutAnyLocation() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let owner = try await users.join("elite")
        let viewer = try await users.join("elite")
        // Stored 1600×1200 landscape; EXIF orientation 6 says: turn 90° clockwise to show it.
        let camera = PhotoFixtures.withLocation(try PhotoFixtures.image(width: 1600, height: 1200, type: "jpeg",
                                                                        seed: Int.random(in: 0..<Int.max)))
        #expect(ServedImage.locationCarriers(camera).contains("EXIF"))
        #expect(ServedImage.locationCarriers(camera).contains("APP1 (XMP)"))
        let blob = try await users.upload(camera, type: "image/jpeg", as: owner)
        let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID, ttlSeconds: 600), options: viewer.bearer)
        #expect(signed.thumbnails.map(\.maxSide) == [320, 1080])
        let expected: [(path: String, width: Int, height: Int)] = [(signed.url, 1200, 1600)]
            + zip(signed.thumbnails.map(\.url), [(240, 320), (810, 1080)]).map { ($0, $1.0, $1.1) }
        for (index, (path, width, height)) in expected.enumerated() {
            #expect(path.hasPrefix("/media/v1/blobs/\(blob.blobID)\(index == 0 ? "" : "/\(signed.thumbnails[index - 1].maxSide)")?expires="))
            for (http2, port) in [(true, users.stack.media.port), (false, users.stack.mediaAdminPort)] {
                let response = try await Curl.get(Self.url(path, port: port), http2: http2)
                #expect(response.status == 200, "\(path)")
                #expect(response.headers["content-type"] == "image/jpeg")
                #expect(response.headers["content-length"] == String(response.body.count))
                #expect(response.headers["etag"] == "\"\(Self.key(blob.sha256, side: index == 0 ? 0 : signed.thumbnails[index - 1].maxSide))\"")
                let size = try #require(ServedImage.jpegSize(response.body))
                #expect(size == (width, height), "\(path): \(size)")
                #expect(ServedImage.locationCarriers(response.body) == [], "\(path)")
            }
        }
        // The profile listing carries the same links, signed for an hour.
        _ = try await users.photos.addPhoto(.init(blobID: blob.blobID), options: owner.bearer)
        let set = try await users.photos.getPhotoSet(.init(accountID: owner.id), options: viewer.bearer)
        let listed = try #require(set.photos.first)
        #expect(listed.renditionStatus == .ready)
        #expect(listed.url.hasPrefix("/media/v1/blobs/\(blob.blobID)?expires="))
        #expect(listed.thumbnails.map(\.maxSide) == [320, 1080])
        let thumbnail = try await Curl.get(Self.url(listed.thumbnails[0].url, port: users.stack.media.port), http2: true)
        #expect(thumbnail.status == 200 && ServedImage.jpegSize(thumbnail.body)! == (240, 320))
        // A rendition lost from storage is made again by the next GET.
        let key = Self.key(blob.sha256, side: 320)
        let file = "\(users.stack.storageDirectory)/blobs/\(key.prefix(2))/\(key.dropFirst(2).prefix(2))/\(key)"
        try FileManager.default.removeItem(atPath: file)
        let again = try await Curl.get(Self.url(listed.thumbnails[0].url, port: users.stack.media.port), http2: true)
        #expect(again.status == 200 && again.body == thumbnail.body)
        #expect(FileManager.default.fileExists(atPath: file))
    }

    /// A photo saved in Display P3 with its profile (as a recent phone saves one) is served in
    /// sRGB, since the profile is not served; a photo without a profile keeps its colours.
    @Test func photoWithAColourProfile_isServedInSRGB_andOneWithoutKeepsItsColours() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let owner = try await users.join("elite")
        let green = try PhotoFixtures.solid(width: 640, height: 480, red: 0, green: 255, blue: 0, type: "png",
                                            seed: Int.random(in: 1..<Int.max))
        let phone = try PhotoFixtures.inDisplayP3(green)
        // sRGB's pure green in P3's terms: what a viewer would see served without the conversion.
        let stored = try PhotoFixtures.centrePixel(phone)
        #expect(stored[0] > 90 && stored[2] > 50, "\(stored)")
        for (bytes, type) in [(phone, "image/jpeg"), (green, "image/png")] {
            let blob = try await users.upload(bytes, type: type, as: owner)
            let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: owner.bearer)
            for path in [signed.url] + signed.thumbnails.map(\.url) {
                let response = try await Curl.get(Self.url(path, port: users.stack.media.port), http2: true)
                #expect(response.status == 200, "\(type) \(path)")
                let pixel = try PhotoFixtures.centrePixel(response.body)
                #expect(pixel.count == 3 && pixel[0] <= 6 && pixel[1] >= 249 && pixel[2] <= 6, "\(type) \(path): \(pixel)")
            }
        }
    }

    @Test func samePhotoTwice_requestedAtOnceOnTwoInstances_isRenderedOnce() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let alice = try await users.join("momento")
        let bob = try await users.join("momento")
        let bytes = PhotoFixtures.withLocation(try PhotoFixtures.image(width: 1400, height: 1000, type: "jpeg",
                                                                       seed: Int.random(in: 0..<Int.max)))
        let second = try await users.stack.startAnotherMedia()
        defer { Task { await second.stop() } }
        // Two people upload the same bytes at once (two blobs, one content).
        async let first = users.upload(bytes, type: "image/jpeg", as: alice)
        async let other = users.upload(bytes, type: "image/jpeg", as: bob)
        let blobs = try await [first, other]
        #expect(blobs[0].sha256 == blobs[1].sha256 && blobs[0].blobID != blobs[1].blobID)
        var paths: [String] = []
        for (blob, user) in zip(blobs, [alice, bob]) {
            let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: user.bearer)
            paths += [signed.url] + signed.thumbnails.map(\.url)
        }
        // Every URL from both instances at once, twice over.
        let requests = (paths + paths).enumerated().map { index, path in
            (index % paths.count, Self.url(path, port: index % 2 == 0 ? users.stack.media.port : second.port))
        }
        let responses = try await withThrowingTaskGroup(of: (Int, Curl.Response).self) { group in
            for (index, url) in requests {
                group.addTask { (index, try await Curl.get(url, http2: true)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.allSatisfy { $0.1.status == 200 })
        for index in paths.indices {
            let bodies = Set(responses.filter { $0.0 == index }.map(\.1.body))
            #expect(bodies.count == 1)
        }
        let admin = try await TestDatabase.makeAdminPool()
        defer { admin.close() }
        let (rows, attempts, status, files) = try await admin.withConnection { connection in
            let row = try await connection.query("""
                SELECT count(*) OVER (), attempts, status, (SELECT count(*) FROM media.rendition_files f WHERE f.sha256 = r.sha256)
                FROM media.renditions r WHERE sha256 = $1
                """, [.text(blobs[0].sha256)])
            let first = try #require(row.first)
            return (try first.decode(0, as: Int64.self), try first.decode(1, as: Int32.self), try first.decode(2, as: Int16.self),
                    try first.decode(3, as: Int64.self))
        }
        #expect((rows, attempts, status, files) == (1, 1, 2, 3))
    }

    /// A content whose rendering gave up on passing trouble (storage unreachable, bytes missing)
    /// is rendered again when the same bytes are uploaded again; one that cannot be decoded is
    /// not tried again.
    @Test func aRenditionThatGaveUp_isMadeAgainByTheNextUploadOfTheSameBytes() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let alice = try await users.join("momento")
        let bob = try await users.join("momento")
        let bytes = try PhotoFixtures.image(width: 700, height: 500, type: "jpeg", seed: Int.random(in: 0..<Int.max))
        let first = try await users.upload(bytes, type: "image/jpeg", as: alice)
        let admin = try await TestDatabase.makeAdminPool()
        defer { admin.close() }
        // As if every attempt had found the store unreachable.
        try await admin.withConnection { connection in
            _ = try await connection.execute("DELETE FROM media.rendition_files WHERE sha256 = $1", [.text(first.sha256)])
            _ = try await connection.execute("""
                UPDATE media.renditions SET status = 3, attempts = 5, lease_id = NULL, lease_until = NULL,
                    failure = 'gave up after 5 attempts: GET object: the store cannot be reached'
                WHERE sha256 = $1
                """, [.text(first.sha256)])
        }
        let failed = await reason { _ = try await users.media.getDownloadURL(.init(blobID: first.blobID), options: alice.bearer) }
        #expect(failed?.code == .failedPrecondition)
        let second = try await users.upload(bytes, type: "image/jpeg", as: bob)
        #expect(second.sha256 == first.sha256)
        let signed = try await users.media.getDownloadURL(.init(blobID: second.blobID), options: bob.bearer)
        let thumbnail = try await Curl.get(Self.url(signed.thumbnails[0].url, port: users.stack.media.port), http2: true)
        #expect(thumbnail.status == 200 && ServedImage.jpegSize(thumbnail.body) != nil)
        // Alice's blob shares the content, so it is served again too.
        #expect(try await users.media.getDownloadURL(.init(blobID: first.blobID), options: alice.bearer).thumbnails.count == 2)

        // A photo that cannot be decoded stays failed however often it is uploaded.
        let noise = ImageFixtures.jpeg(width: 800, height: 600, size: 30_000, seed: UInt8.random(in: 0...255))
        let broken = try await users.upload(noise, type: "image/jpeg", as: alice)
        // Its first GET renders it (and finds it unreadable).
        let path = "/media/v1/blobs/\(broken.blobID)"
        let expires = Int64(Date().timeIntervalSince1970) + 600
        let signature = HMACSHA256.authenticate(key: Array(MediaStack.urlSecret.utf8), message: Array("\(path)\n\(expires)".utf8))
            .map { String(format: "%02x", $0) }.joined()
        let rendered = try await Curl.get(Self.url("\(path)?expires=\(expires)&sig=\(signature)", port: users.stack.media.port), http2: true)
        #expect(rendered.status == 422)
        func state() async throws -> (Int16, Int32) {
            try await admin.withConnection { connection in
                let row = try #require(try await connection.query("SELECT status, attempts FROM media.renditions WHERE sha256 = $1",
                                                                  [.text(broken.sha256)]).first)
                return (try row.decode(0, as: Int16.self), try row.decode(1, as: Int32.self))
            }
        }
        let before = try await state()
        #expect(before.0 == 3)
        let again = try await users.upload(noise, type: "image/jpeg", as: bob)
        #expect(again.sha256 == broken.sha256)
        let after = try await state()
        #expect(after == before)
        let refused = await reason { _ = try await users.media.getDownloadURL(.init(blobID: again.blobID), options: bob.bearer) }
        #expect(refused?.reason == "IMAGE_UNREADABLE")
    }

    @Test func corruptPhoto_isNeverServed_andSaysWhy() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let owner = try await users.join("elite")
        // Real headers around noise, and a real JPEG cut off halfway.
        let noise = ImageFixtures.jpeg(width: 800, height: 600, size: 30_000, seed: UInt8.random(in: 0...255))
        let whole = try PhotoFixtures.image(width: 900, height: 700, type: "jpeg", seed: Int.random(in: 0..<Int.max))
        for bytes in [noise, Array(whole.prefix(whole.count / 2))] {
            let blob = try await users.upload(bytes, type: "image/jpeg", as: owner)
            let path = "/media/v1/blobs/\(blob.blobID)"
            let secret = Array(MediaStack.urlSecret.utf8)
            let expires = Int64(Date().timeIntervalSince1970) + 600
            for target in [path, path + "/320"] {
                let signature = HMACSHA256.authenticate(key: secret, message: Array("\(target)\n\(expires)".utf8))
                    .map { String(format: "%02x", $0) }.joined()
                let response = try await Curl.get(Self.url("\(target)?expires=\(expires)&sig=\(signature)", port: users.stack.media.port),
                                                  http2: true)
                #expect(response.status == 422, "\(target)")
                #expect(String(decoding: response.body, as: UTF8.self).contains("cannot be decoded"))
            }
            let refused = await reason { _ = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: owner.bearer) }
            #expect(refused?.code == .failedPrecondition && refused?.reason == "IMAGE_UNREADABLE")
            _ = try await users.photos.addPhoto(.init(blobID: blob.blobID), options: owner.bearer)
        }
        let set = try await users.photos.getPhotoSet(.init(), options: owner.bearer)
        #expect(set.photos.count == 2)
        #expect(set.photos.allSatisfy { $0.renditionStatus == .failed && $0.url.isEmpty && $0.thumbnails.isEmpty })
        // The service is still there and still renders.
        let good = try await users.upload(whole, type: "image/jpeg", as: owner)
        let signed = try await users.media.getDownloadURL(.init(blobID: good.blobID), options: owner.bearer)
        let response = try await Curl.get(Self.url(signed.thumbnails[1].url, port: users.stack.media.port), http2: true)
        #expect(response.status == 200 && ServedImage.jpegSize(response.body)! == (900, 700))
    }

    @Test func thumbnailURLs_onlyForPhotos_andOnlyTheListedSizes() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let host = try await users.join("firstdate", role: "host")
        let photo = try await users.upload(try PhotoFixtures.image(width: 500, height: 400, type: "jpeg", seed: Int.random(in: 0..<Int.max)),
                                           type: "image/jpeg", as: host)
        let receiptBytes = PhotoFixtures.withLocation(try PhotoFixtures.image(width: 500, height: 400, type: "jpeg",
                                                                              seed: Int.random(in: 0..<Int.max)))
        let receipt = try await users.upload(receiptBytes, kind: .receipt, type: "image/jpeg", as: host)
        // A private kind is served as uploaded, to hosts, and has no thumbnails.
        let signedReceipt = try await users.media.getDownloadURL(.init(blobID: receipt.blobID), options: host.bearer)
        #expect(signedReceipt.thumbnails.isEmpty)
        let secret = Array(MediaStack.urlSecret.utf8)
        let expires = Int64(Date().timeIntervalSince1970) + 600
        func signed(_ path: String) -> String {
            let signature = HMACSHA256.authenticate(key: secret, message: Array("\(path)\n\(expires)".utf8))
                .map { String(format: "%02x", $0) }.joined()
            return Self.url("\(path)?expires=\(expires)&sig=\(signature)", port: users.stack.media.port)
        }
        let original = try await Curl.get(signed("/media/v1/blobs/\(receipt.blobID)"), http2: true)
        #expect(original.status == 200 && original.headers["cache-control"] == "private, no-store")
        #expect(original.body == receiptBytes)
        #expect(try await Curl.get(signed("/media/v1/blobs/\(receipt.blobID)/320"), http2: true).status == 404)
        // Only the sizes media makes, even when signed with the real secret.
        for side in ["999", "0", "320/320", "-320"] {
            #expect(try await Curl.get(signed("/media/v1/blobs/\(photo.blobID)/\(side)"), http2: true).status == 403, "\(side)")
        }
        #expect(try await Curl.get(signed("/media/v1/blobs/\(photo.blobID)/1080"), http2: true).status == 200)
    }

    @Test func pngAndHEIC_areRendered_pngStaysPNG() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let owner = try await users.join("swivo")
        let seed = Int.random(in: 0..<Int.max)
        let png = try PhotoFixtures.image(width: 900, height: 600, type: "png", alpha: true, seed: seed)
        let heic = try PhotoFixtures.image(width: 1200, height: 800, type: "heic", seed: seed)
        let cases: [(bytes: [UInt8], type: String, fullType: String, full: (Int, Int), small: (Int, Int), large: (Int, Int))] = [
            (png, "image/png", "image/png", (900, 600), (320, 213), (900, 600)),
            (heic, "image/heic", "image/jpeg", (1200, 800), (320, 213), (1080, 720)),
        ]
        for item in cases {
            let blob = try await users.upload(item.bytes, type: item.type, as: owner)
            let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: owner.bearer)
            let full = try await Curl.get(Self.url(signed.url, port: users.stack.media.port), http2: true)
            #expect(full.status == 200)
            #expect(full.headers["content-type"] == item.fullType)
            let size = item.fullType == "image/png" ? RealPNG.dimensions(full.body) : ServedImage.jpegSize(full.body)
            #expect(size.map { [$0.width, $0.height] } == [item.full.0, item.full.1], "\(item.type)")
            #expect(ServedImage.locationCarriers(full.body) == [])
            for (thumbnail, expected) in zip(signed.thumbnails, [item.small, item.large]) {
                let response = try await Curl.get(Self.url(thumbnail.url, port: users.stack.media.port), http2: true)
                #expect(response.headers["content-type"] == "image/jpeg")
                #expect(ServedImage.jpegSize(response.body).map { [$0.width, $0.height] } == [expected.0, expected.1],
                        "\(item.type) \(thumbnail.maxSide)")
            }
        }
    }
}
