import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import RPC
import Synchronization
import TestSupport
import Testing

/// Media as an app meets it: `GatewayClient` talking to one address, the nginx edge, which
/// routes gRPC to the real identity and media executables and signed downloads to media's
/// HTTP listener.
@Suite(.serialized) struct EndToEndMediaTests {
    /// Runs `body` against a fresh stack behind the edge, stopping it however `body` ends.
    static func withStack(_ body: (MediaStack) async throws -> Void) async throws {
        let stack = try await MediaStack.start(withEdge: true)
        do {
            try await body(stack)
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    static func client(_ stack: MediaStack, app: String, retryPolicy: RetryPolicy = RetryPolicy()) throws -> GatewayClient {
        let edge = try #require(stack.edge)
        return try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: edge.port, security: .plaintext,
                                                                     app: app, deviceName: "e2e", retryPolicy: retryPolicy),
                                 tokenStore: InMemoryTokenStore())
    }

    /// A PNG header declaring `width`×`height` before `size` bytes of filler.
    static func png(width: UInt32, height: UInt32, size: Int) -> [UInt8] {
        func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8)
            + be32(width) + be32(height) + [8, 6, 0, 0, 0, 0, 0, 0, 0]
        var value: UInt32 = 0x1234_5678
        while bytes.count < size {
            value = value &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        }
        return bytes
    }

    @Test func upload_withProgress_thenDownloadBySignedURL_throughTheEdge() async throws {
        try await Self.withStack { stack in
            let client = try Self.client(stack, app: "momento")
            defer { client.close() }
            _ = try await client.identity.signInAnonymously()
            // A real PNG: photos are served as renditions libvips makes from them.
            let bytes = RealPNG.make(width: 1600, height: 1200, size: 1_500_000, seed: Int.random(in: 0..<Int.max))
            let seen = Mutex<[UploadProgress]>([])
            let blob = try await client.media.upload(bytes, kind: .photo, contentType: "image/png", chunkSize: 200_000) { progress in
                seen.withLock { $0.append(progress) }
            }
            #expect((blob.width, blob.height) == (1600, 1200))
            let reports = seen.withLock { $0 }
            #expect(reports.map(\.sentBytes) == Array(stride(from: 200_000, to: 1_500_000, by: 200_000)).map(Int64.init) + [1_500_000])
            #expect(reports.allSatisfy { $0.totalBytes == 1_500_000 && $0.attempt == 1 })
            let url = try await client.media.downloadURL(blob.blobID)
            let served = try await client.media.download(url.url)
            #expect(RealPNG.dimensions(served).map { [$0.width, $0.height] } == [1600, 1200])
            #expect(url.thumbnails.map(\.maxSide) == [320, 1080])
            let thumbnail = try await client.media.download(url.thumbnails[0].url)
            #expect(thumbnail.starts(with: [0xFF, 0xD8, 0xFF]))
            // A tampered URL is refused by the service behind the edge.
            let tampered = url.url.replacingOccurrences(of: "sig=", with: "sig=0")
            do {
                _ = try await client.media.download(tampered)
                Issue.record("a tampered URL downloaded")
            } catch {
                #expect((error as? GatewayError)?.code == .permissionDenied)
            }
            // A photo whose pixels do not decode (real headers, noise after them) is never served.
            let broken = try await client.media.upload(Self.png(width: 640, height: 480, size: 5_000 + Int.random(in: 0..<50_000)),
                                                       kind: .photo, contentType: "image/png")
            do {
                _ = try await client.media.download(try await client.media.downloadURL(broken.blobID).url)
                Issue.record("an undecodable photo was served")
            } catch {
                #expect((error as? GatewayError)?.mediaReason == .imageUnreadable)
            }
            // Bad input arrives as a typed reason.
            do {
                _ = try await client.media.upload(bytes, kind: .photo, contentType: "image/jpeg")
                Issue.record("a PNG was accepted as a JPEG")
            } catch {
                #expect((error as? GatewayError)?.mediaReason == .typeMismatch)
            }
        }
    }

    /// ÉLITE's profile photos through the gateway client: six fit, a seventh is refused with the
    /// reason, the order can change, another member reads the set with its renditions; then what
    /// a client must be refused: a private kind to someone who is not a host, an expired URL, a
    /// 50 MiB photo and a decompression bomb, each with its reason.
    @Test func profilePhotos_withinAndBeyondTheLimit_andWhatIsRefused() async throws {
        try await Self.withStack { stack in
            let member = try Self.client(stack, app: "elite")
            let other = try Self.client(stack, app: "elite")
            defer {
                member.close()
                other.close()
            }
            let password = "correct horse battery staple"
            let me = try await member.signUpAdmitted("\(TestDatabase.uniqueName("photos"))@example.com", password: password)
            _ = try await other.signUpAdmitted("\(TestDatabase.uniqueName("photos"))@example.com", password: password)
            let seed = Int.random(in: 0..<1_000_000)
            var blobs: [Media.Blob] = []
            for index in 0..<7 {
                blobs.append(try await member.media.upload(RealPNG.make(width: 120 + index, height: 90, seed: seed + index),
                                                           kind: .photo, contentType: "image/png"))
            }
            var set = try await member.profilePhotos.photoSet()
            #expect(set.photos.isEmpty && set.maximum == 6)
            for blob in blobs.prefix(6) { set = try await member.profilePhotos.add(blob.blobID) }
            #expect(set.photos.map(\.blobID) == blobs.prefix(6).map(\.blobID))
            do {
                _ = try await member.profilePhotos.add(blobs[6].blobID)
                Issue.record("a seventh ÉLITE photo was added")
            } catch {
                #expect((error as? GatewayError)?.mediaReason == .photoLimitReached)
            }
            // Adding one already there changes nothing (the client may resend it).
            #expect(try await member.profilePhotos.add(blobs[0].blobID).photos.count == 6)
            let reversed = Array(blobs.prefix(6).map(\.blobID).reversed())
            #expect(try await member.profilePhotos.reorder(reversed).photos.map(\.blobID) == reversed)
            do {
                _ = try await member.profilePhotos.reorder(Array(reversed.dropLast()))
                Issue.record("an order missing a photo was taken")
            } catch {
                #expect((error as? GatewayError)?.mediaReason == .invalidOrder)
            }

            // Another member sees the set in its order, with signed renditions to load.
            let seen = try await other.profilePhotos.photoSet(of: me.id)
            #expect(seen.photos.map(\.blobID) == reversed)
            let main = try #require(seen.photos.first)
            let served = try await other.media.download(main.url)
            #expect(RealPNG.dimensions(served).map { [$0.width, $0.height] } == [125, 90])
            #expect(main.thumbnails.map(\.maxSide) == [320, 1080])
            #expect(try await other.media.download(main.thumbnails[0].url).starts(with: [0xFF, 0xD8, 0xFF]))
            // Nobody else changes it.
            do {
                _ = try await other.profilePhotos.remove(main.blobID)
                #expect(try await member.profilePhotos.photoSet().photos.count == 6, "another member removed a photo")
            } catch {
                #expect([.notFound, .permissionDenied, .failedPrecondition].contains((error as? GatewayError)?.code))
            }

            // A private kind goes to the app's hosts only: not to another member, not even by URL.
            let receipt = try await member.media.upload(RealPNG.make(width: 300, height: 200, seed: seed), kind: .receipt,
                                                        contentType: "image/png")
            do {
                _ = try await other.media.downloadURL(receipt.blobID)
                Issue.record("another member got a receipt's URL")
            } catch {
                #expect((error as? GatewayError)?.mediaReason == .privateBlob)
            }
            // An expired URL is refused.
            let shortLived = try await member.media.downloadURL(blobs[0].blobID, ttlSeconds: 1)
            try await Task.sleep(for: .milliseconds(2_100))
            do {
                _ = try await member.media.download(shortLived.url)
                Issue.record("an expired URL downloaded")
            } catch {
                #expect((error as? GatewayError)?.code == .permissionDenied)
            }
            // A 50 MiB photo is refused before a byte is sent; a small file declaring 60,000 × 60,000
            // pixels (a decompression bomb) when its header arrives.
            do {
                _ = try await member.media.upload([UInt8](repeating: 0, count: 50 << 20), kind: .photo, contentType: "image/png")
                Issue.record("a 50 MiB photo was accepted")
            } catch {
                #expect((error as? GatewayError)?.mediaReason == .tooLarge)
            }
            do {
                _ = try await member.media.upload(Self.png(width: 60_000, height: 60_000, size: 20_000), kind: .photo,
                                                  contentType: "image/png")
                Issue.record("a decompression bomb was accepted")
            } catch {
                #expect((error as? GatewayError)?.mediaReason == .imageTooLarge)
            }
        }
    }

    /// Each attempt may run only 60 ms, so a 30 MB video selfie takes several; an attempt after
    /// the first starts where the server's bytes end instead of at zero.
    @Test func upload_interruptedAttempts_resumeFromTheServersBytes() async throws {
        try await Self.withStack { stack in
            // Up to 10 attempts in a row without progress before giving up (a loaded machine).
            let client = try Self.client(stack, app: "firstdate", retryPolicy: RetryPolicy(maxAttempts: 10))
            defer { client.close() }
            _ = try await client.identity.signUpWithEmail("\(TestDatabase.uniqueName("media"))@example.com",
                                                          password: "correct horse battery staple")
            var video: [UInt8] = [0, 0, 0, 20] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("mp41".utf8)
            video += [UInt8](repeating: 7, count: 30_000_000 - video.count)
            let seen = Mutex<[UploadProgress]>([])
            let blob = try await client.media.upload(video, kind: .videoSelfie, contentType: "video/mp4", chunkSize: 1 << 20,
                                                     deadline: .milliseconds(60)) { progress in
                seen.withLock { $0.append(progress) }
            }
            let reports = seen.withLock { $0 }
            #expect(blob.size == 30_000_000)
            #expect(reports.last?.sentBytes == 30_000_000)
            let attempts = Set(reports.map(\.attempt))
            #expect(attempts.count > 1, "the upload never needed a second attempt: raise its size or lower the deadline")
            // Some later attempt's first chunk ends past the first chunk: it continued, not restarted.
            let resumed = attempts.filter { $0 > 1 }.contains { attempt in
                (reports.first { $0.attempt == attempt }?.sentBytes ?? 0) > 1 << 20
            }
            #expect(resumed, "\(reports.map { ($0.attempt, $0.sentBytes) })")
        }
    }

    /// Momento from the QR code to the gallery: a creator makes an event, a guest previews the
    /// code signed out, signs in and joins, takes 16 photos at once of which exactly the limit
    /// get in, sees only their own until the release time, then the whole gallery.
    @Test func momento_fromQRJoinThroughUploadsAtTheLimit_toTheRevealedGallery() async throws {
        try await Self.withStack { stack in
            let (creator, guest) = (try Self.client(stack, app: "momento"), try Self.client(stack, app: "momento"))
            defer {
                creator.close()
                guest.close()
            }
            let host = try await creator.identity.signInAnonymously()
            var request = Momento.CreateEventRequest()
            request.title = "Warehouse rave"
            request.releaseAt = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + 3) * 1_000_000))
            let event = try await creator.momento.create(request)
            let creatorPhoto = try await creator.media.upload(RealPNG.make(width: 640, height: 480, seed: Int.random(in: 0..<Int.max)),
                                                              kind: .photo,
                                                              contentType: "image/png")
            _ = try await creator.momento.addPhoto(blobID: creatorPhoto.blobID, to: event.eventID)

            // The QR code: momento://join/CODE?eventId=ID.
            let link = try #require(URLComponents(string: event.joinLink))
            #expect(link.scheme == "momento" && link.host == "join")
            let code = String(link.path.dropFirst())
            #expect(link.queryItems?.first { $0.name == "eventId" }?.value == event.eventID)
            let preview = try await guest.momento.preview(joinCode: code)
            #expect(preview.title == "Warehouse rave")
            do {
                _ = try await guest.momento.preview(joinCode: "W0RKS1")
                Issue.record("a code with look-alikes was looked up")
            } catch {
                #expect((error as? GatewayError)?.mediaReason == .invalidJoinCode)
            }
            _ = try await guest.identity.signInAnonymously()
            // The creator's live counters see the join and every stored photo.
            let live = creator.momento.watchCounters(event.eventID)
            let counted = Task {
                var latest = Momento.EventCounters()
                for try await counters in live {
                    latest = counters
                    if counters.memberCount == 2 && counters.photoCount == 6 { break }
                }
                return latest
            }
            let joined = try await guest.momento.join(joinCode: code, invitedBy: host.id)
            #expect(joined.memberCount == 2)

            let stored = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        do {
                            let blob = try await guest.media.upload(Self.png(width: 800, height: UInt32(600 + index), size: 40_000),
                                                                    kind: .photo, contentType: "image/png")
                            _ = try await guest.momento.addPhoto(blobID: blob.blobID, to: event.eventID)
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(stored == 5)
            let before = try await guest.momento.photos(of: event.eventID)
            #expect(!before.revealed && before.photos.count == 5)
            #expect(try await guest.momento.event(event.eventID).photoCount == 6)
            let stopper = Task {
                try await Task.sleep(for: .seconds(10))
                counted.cancel()
            }
            let latest = try await counted.value
            stopper.cancel()
            #expect((latest.memberCount, latest.photoCount) == (2, 6))

            let deadline = ContinuousClock.now + .seconds(15)
            var gallery = before
            while !gallery.revealed, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                gallery = try await guest.momento.photos(of: event.eventID)
            }
            #expect(gallery.revealed && gallery.photos.count == 6)
            let theirs = try #require(gallery.photos.first { $0.blobID == creatorPhoto.blobID })
            #expect(theirs.renditionStatus != .failed && theirs.thumbnails.count == 2)
            #expect(RealPNG.dimensions(try await guest.media.download(theirs.url)).map { [$0.width, $0.height] } == [640, 480])
            #expect(try await creator.momento.joinCodeStats(event.eventID).joins == 1)
        }
    }
}
