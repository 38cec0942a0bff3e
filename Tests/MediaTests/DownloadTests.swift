import Contracts
import CryptoCore
import Foundation
import RPC
import TestSupport
import Testing

/// Signed download URLs, fetched with curl from the real executable: HTTP/2 (h2c) on the gRPC
/// port and HTTP/1.1 on the admin port, ranges, validators, expiry, tampering, and who may get a
/// URL for what.
@Suite(.mediaServices, .serialized)
struct DownloadTests {
    static func url(_ path: String, port: Int) -> String { "http://127.0.0.1:\(port)\(path)" }

    @Test func signedURL_servesTheBytes_overHTTP2AndHTTP1() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let owner = try await users.join("elite")
        let viewer = try await users.join("elite")
        // A photo is served as its full-size rendition (RenditionTests): the same bytes on both.
        let bytes = try PhotoFixtures.image(width: 1024, height: 768, type: "jpeg", seed: Int.random(in: 0..<Int.max))
        let blob = try await users.upload(bytes, type: "image/jpeg", as: owner)
        let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID, ttlSeconds: 600), options: viewer.bearer)
        #expect(signed.url.hasPrefix("/media/v1/blobs/\(blob.blobID)?expires="))
        var served: Set<[UInt8]> = []
        for (http2, port) in [(true, users.stack.media.port), (false, users.stack.mediaAdminPort)] {
            let response = try await Curl.get(Self.url(signed.url, port: port), http2: http2)
            #expect(response.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))
            #expect(response.status == 200)
            #expect(ServedImage.jpegSize(response.body).map { [$0.width, $0.height] } == [1024, 768])
            served.insert(response.body)
            #expect(response.headers["content-type"] == "image/jpeg")
            #expect(response.headers["content-length"] == String(response.body.count))
            #expect(response.headers["etag"] == "\"\(RenditionTests.key(blob.sha256, side: 0))\"")
            #expect(response.headers["accept-ranges"] == "bytes")
            let cache = try #require(response.headers["cache-control"])
            #expect(cache.hasPrefix("private, max-age="))
            let maxAge = Int(cache.split(separator: "=")[1].split(separator: ",")[0]) ?? 0
            #expect((590...600).contains(maxAge))
        }
        #expect(served.count == 1)
    }

    @Test func range_ifNoneMatch_andHead() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let owner = try await users.join("swivo")
        let blob = try await users.upload(try PhotoFixtures.image(width: 400, height: 300, type: "png", seed: Int.random(in: 0..<Int.max)),
                                          as: owner)
        let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: owner.bearer)
        // Ranges of what the URL serves (the photo's full-size rendition).
        let bytes = try await Curl.get(Self.url(signed.url, port: users.stack.media.port), http2: true).body
        let count = bytes.count
        #expect(count > 2_000)
        for (http2, port) in [(true, users.stack.media.port), (false, users.stack.mediaAdminPort)] {
            let url = Self.url(signed.url, port: port)
            let middle = try await Curl.get(url, http2: http2, headers: ["Range: bytes=1000-1999"])
            #expect(middle.status == 206)
            #expect(middle.body == Array(bytes[1000..<2000]))
            #expect(middle.headers["content-range"] == "bytes 1000-1999/\(count)")
            let tail = try await Curl.get(url, http2: http2, headers: ["Range: bytes=-10"])
            #expect(tail.status == 206)
            #expect(tail.body == Array(bytes.suffix(10)))
            let open = try await Curl.get(url, http2: http2, headers: ["Range: bytes=\(count - 10)-"])
            #expect(open.body == Array(bytes.suffix(10)))
            let beyond = try await Curl.get(url, http2: http2, headers: ["Range: bytes=\(count)-"])
            #expect(beyond.status == 416)
            #expect(beyond.headers["content-range"] == "bytes */\(count)")
            // An end as large as a 64-bit integer goes (once an overflow that ended the process):
            // the rest of the representation.
            let huge = try await Curl.get(url, http2: http2, headers: ["Range: bytes=\(count - 10)-9223372036854775807"])
            #expect(huge.status == 206)
            #expect(huge.body == Array(bytes.suffix(10)))
            #expect(huge.headers["content-range"] == "bytes \(count - 10)-\(count - 1)/\(count)")
            let cached = try await Curl.get(url, http2: http2,
                                            headers: ["If-None-Match: \"\(RenditionTests.key(blob.sha256, side: 0))\""])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            let head = try await Curl.get(url, http2: http2, head: true)
            #expect(head.status == 200)
            #expect(head.headers["content-length"] == String(count))
            #expect(head.body.isEmpty)
        }
    }

    @Test func expiredOrTamperedURL_isForbidden() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let owner = try await users.join("swivo")
        let blob = try await users.upload(try PhotoFixtures.image(width: 64, height: 48, type: "png", seed: Int.random(in: 0..<Int.max)),
                                          as: owner)
        let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: owner.bearer)
        let port = users.stack.media.port
        let good = try await Curl.get(Self.url(signed.url, port: port), http2: true)
        #expect(good.status == 200)
        // Signed with the real secret, but a minute in the past.
        let path = "/media/v1/blobs/\(blob.blobID)"
        let past = Int64(Date().timeIntervalSince1970) - 60
        let signature = HMACSHA256.authenticate(key: Array(MediaStack.urlSecret.utf8), message: Array("\(path)\n\(past)".utf8))
            .map { String(format: "%02x", $0) }.joined()
        let expired = "\(path)?expires=\(past)&sig=\(signature)"
        // The same URL with a later expiry, a changed signature, or another blob's path.
        let expires = try #require(signed.url.split(separator: "expires=")[1].split(separator: "&").first)
        let later = signed.url.replacingOccurrences(of: "expires=\(expires)", with: "expires=\(Int64(expires)! + 3_600)")
        let flipped = String(signed.url.dropLast()) + (signed.url.last == "0" ? "1" : "0")
        let other = try await users.upload(ImageFixtures.png(size: 5_000, seed: 2), as: owner)
        let moved = signed.url.replacingOccurrences(of: blob.blobID, with: other.blobID)
        let unsigned = path
        for bad in [expired, later, flipped, moved, unsigned] {
            for (http2, port) in [(true, port), (false, users.stack.mediaAdminPort)] {
                let response = try await Curl.get(Self.url(bad, port: port), http2: http2)
                #expect(response.status == 403, "\(bad)")
                #expect(response.body != good.body)
            }
        }
    }

    @Test func privateKinds_goOnlyToTheAppsHosts() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let applicant = try await users.join("firstdate")
        let viewer = try await users.join("firstdate")
        let host = try await users.join("firstdate", role: "host")
        let signature = try await users.upload(ImageFixtures.png(width: 600, height: 200, size: 20_000), kind: .consentSignature,
                                               as: applicant)
        let video = try await users.upload(ImageFixtures.mp4(size: 80_000), kind: .videoSelfie, type: "video/mp4", as: applicant)
        #expect((video.width, video.height) == (0, 0))
        for blob in [signature, video] {
            for refused in [viewer, applicant] {
                let denied = await reason {
                    _ = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: refused.bearer)
                }
                #expect(denied?.code == .permissionDenied)
                #expect(denied?.reason == "PRIVATE_BLOB")
            }
            let signed = try await users.media.getDownloadURL(.init(blobID: blob.blobID), options: host.bearer)
            let response = try await Curl.get(Self.url(signed.url, port: users.stack.media.port), http2: true)
            #expect(response.status == 200)
            #expect(response.headers["cache-control"] == "private, no-store")
            #expect(response.body.count == Int(blob.size))
        }
        // The owner still reads the metadata of their own file; other viewers do not.
        #expect(try await users.media.getBlob(.init(blobID: signature.blobID), options: applicant.bearer).blobID == signature.blobID)
        let hidden = await reason { _ = try await users.media.getBlob(.init(blobID: signature.blobID), options: viewer.bearer) }
        #expect(hidden?.reason == "PRIVATE_BLOB")
        // A host of another app has no power here.
        let otherHost = try await users.join("elite", role: "admin")
        let foreign = await reason {
            _ = try await users.media.getDownloadURL(.init(blobID: signature.blobID), options: otherHost.bearer)
        }
        #expect(foreign?.reason == "BLOB_NOT_FOUND")
    }

    @Test func getDownloadURL_badInput() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let user = try await users.join("swivo")
        let blob = try await users.upload(ImageFixtures.png(size: 2_000), as: user)
        let ttl = await reason { _ = try await users.media.getDownloadURL(.init(blobID: blob.blobID, ttlSeconds: 90_000), options: user.bearer) }
        #expect(ttl?.reason == "INVALID_TTL")
        let malformed = await reason { _ = try await users.media.getDownloadURL(.init(blobID: "x"), options: user.bearer) }
        #expect(malformed?.reason == "INVALID_BLOB_ID")
        let missing = await reason {
            _ = try await users.media.getDownloadURL(.init(blobID: UUID().uuidString), options: user.bearer)
        }
        #expect(missing?.reason == "BLOB_NOT_FOUND")
    }
}
