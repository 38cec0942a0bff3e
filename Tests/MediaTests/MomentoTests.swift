import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// Momento's events through the real executables: creation, join codes and QR links, preview
/// without an account, joins and analytics, the per-member photo limit under 16 concurrent
/// uploads, what members see before and after the reveal, moderation, and the reveal job with
/// two media instances.
@Suite(.mediaServices, .serialized)
struct MomentoTests {
    static let alphabet = Set("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")

    func createEvent(_ users: MediaUsers, by creator: User, releaseIn seconds: Double = 3_600, isPrivate: Bool = false,
                     limit: Int32 = 0) async throws -> Momento.MomentoEvent {
        var request = Momento.CreateEventRequest()
        request.title = "NYE Party"
        request.releaseAt = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + seconds) * 1_000_000))
        request.isPrivate = isPrivate
        request.maxPhotosPerMember = limit
        request.location = Momento.EventLocation(name: "Shoreditch", latitude: 51.52, longitude: -0.08)
        request.description = "Bring a camera"
        return try await users.momento.createEvent(request, options: creator.bearer)
    }

    /// Uploads a photo and adds it to `event`.
    func shoot(_ users: MediaUsers, _ event: Momento.MomentoEvent, as user: User, seed: UInt8) async throws -> Momento.EventPhoto {
        let blob = try await users.upload(ImageFixtures.jpeg(width: 2048, height: 1536, size: 20_000, seed: seed), type: "image/jpeg",
                                          as: user)
        return try await users.momento.addEventPhoto(.init(eventID: event.eventID, blobID: blob.blobID), options: user.bearer)
    }

    @Test func create_preview_join_andCodeAnalytics() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let creator = try await users.join("momento")
        let guest = try await users.join("momento")
        let event = try await createEvent(users, by: creator)
        #expect(event.joinCode.count == 6 && event.joinCode.allSatisfy(Self.alphabet.contains))
        #expect(event.joinLink == "momento://join/\(event.joinCode)?eventId=\(event.eventID)")
        #expect(event.maxPhotosPerMember == 5)
        #expect(event.myRole == .creator)
        #expect((event.memberCount, event.photoCount) == (1, 0))
        #expect(event.revealedAt == nil)

        // The QR code opens a preview before the app has an account.
        let preview = try await users.momento.previewEvent(.init(joinCode: event.joinCode))
        #expect(preview.eventID == event.eventID)
        #expect(preview.title == "NYE Party")
        #expect(preview.location?.name == "Shoreditch")
        #expect(preview.memberCount == 1)
        _ = try await users.momento.previewEvent(.init(joinCode: event.joinCode.lowercased()))

        let joined = try await users.momento.joinEvent(.init(joinCode: event.joinCode.lowercased(), invitedBy: creator.id),
                                                       options: guest.bearer)
        #expect(joined.myRole == .member)
        #expect(joined.memberCount == 2)
        let again = try await users.momento.joinEvent(.init(joinCode: event.joinCode), options: guest.bearer)
        #expect(again.memberCount == 2)
        let stats = try await users.momento.getJoinCodeStats(.init(eventID: event.eventID), options: creator.bearer)
        #expect((stats.views, stats.joins) == (2, 1))
        let notAdmin = await reason { _ = try await users.momento.getJoinCodeStats(.init(eventID: event.eventID), options: guest.bearer) }
        #expect(notAdmin?.reason == "NOT_EVENT_ADMIN")

        // Private: the preview shows the title and the time only.
        let hidden = try await createEvent(users, by: creator, isPrivate: true)
        let privatePreview = try await users.momento.previewEvent(.init(joinCode: hidden.joinCode))
        #expect(privatePreview.title == "NYE Party")
        #expect(privatePreview.location == nil && privatePreview.description.isEmpty && privatePreview.memberCount == 0)
    }

    @Test func badInput_andOutsiders() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let creator = try await users.join("momento")
        let outsider = try await users.join("momento")
        let event = try await createEvent(users, by: creator)
        for code in ["ABC0O1", "ABCDE", "ABCDEFG", "ABCDI2", "ABC-12"] {
            let refused = await reason { _ = try await users.momento.previewEvent(.init(joinCode: code)) }
            #expect(refused?.code == .invalidArgument, "\(code)")
            #expect(refused?.reason == "INVALID_JOIN_CODE", "\(code)")
        }
        let unknown = await reason { _ = try await users.momento.joinEvent(.init(joinCode: "ZZZZZ2"), options: outsider.bearer) }
        #expect(unknown?.reason == "JOIN_CODE_NOT_FOUND")
        let unsigned = await reason { _ = try await users.momento.joinEvent(.init(joinCode: event.joinCode)) }
        #expect(unsigned?.code == .unauthenticated)
        let stranger = try await users.join("momento")
        let badInviter = await reason {
            _ = try await users.momento.joinEvent(.init(joinCode: event.joinCode, invitedBy: stranger.id), options: outsider.bearer)
        }
        #expect(badInviter?.code == .invalidArgument)
        #expect(badInviter?.reason == "INVALID_INVITER")
        for call in [{ _ = try await users.momento.getEvent(.init(eventID: event.eventID), options: outsider.bearer) },
                     { _ = try await users.momento.listEventPhotos(.init(eventID: event.eventID), options: outsider.bearer) }] {
            #expect(await reason(of: call)?.reason == "EVENT_NOT_FOUND")
        }
        let blob = try await users.upload(ImageFixtures.png(size: 2_000, seed: 60), as: outsider)
        let notMember = await reason {
            _ = try await users.momento.addEventPhoto(.init(eventID: event.eventID, blobID: blob.blobID), options: outsider.bearer)
        }
        #expect(notMember?.reason == "EVENT_NOT_FOUND")
        // Another app's member cannot join a Momento event by its code.
        let swivo = try await users.join("swivo")
        let otherApp = await reason { _ = try await users.momento.joinEvent(.init(joinCode: event.joinCode), options: swivo.bearer) }
        #expect(otherApp?.reason == "JOIN_CODE_NOT_FOUND")
        var request = Momento.CreateEventRequest()
        request.title = "Past"
        request.releaseAt = Timestamp(seconds: Int64(Date().timeIntervalSince1970) - 10)
        #expect(await reason { _ = try await users.momento.createEvent(request, options: creator.bearer) }?.reason == "INVALID_RELEASE_TIME")
        // Times beyond google.protobuf.Timestamp's range (any int64 decodes; one once overflowed
        // and ended the process) are refused like any other time out of bounds.
        for seconds in [Int64.max, Int64.min, 9_223_372_036_855] {
            request.releaseAt = Timestamp(seconds: seconds)
            #expect(await reason { _ = try await users.momento.createEvent(request, options: creator.bearer) }?.reason
                    == "INVALID_RELEASE_TIME")
        }
        // Nanos outside 0-999,999,999 at a time that is otherwise fine are refused too (they used
        // to be clamped and the event created).
        for nanos: Int32 in [-1, 1_500_000_000] {
            request.releaseAt = Timestamp(seconds: Int64(Date().timeIntervalSince1970) + 600, nanos: nanos)
            #expect(await reason { _ = try await users.momento.createEvent(request, options: creator.bearer) }?.reason
                    == "INVALID_RELEASE_TIME")
        }
        request.releaseAt = Timestamp(seconds: Int64(Date().timeIntervalSince1970) + 600)
        request.title = " "
        #expect(await reason { _ = try await users.momento.createEvent(request, options: creator.bearer) }?.reason == "INVALID_TITLE")
        request.title = "Ok"
        request.maxPhotosPerMember = 500
        #expect(await reason { _ = try await users.momento.createEvent(request, options: creator.bearer) }?.reason == "INVALID_PHOTO_LIMIT")
    }

    @Test func sixteenConcurrentUploads_byOneMember_storeExactlyTheLimit() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let creator = try await users.join("momento")
        let member = try await users.join("momento")
        let event = try await createEvent(users, by: creator)
        _ = try await users.momento.joinEvent(.init(joinCode: event.joinCode), options: member.bearer)
        let outcomes = await withTaskGroup(of: String?.self) { group in
            for index in 0..<16 {
                group.addTask {
                    do {
                        _ = try await shoot(users, event, as: member, seed: UInt8(index))
                        return nil
                    } catch let error as RPCError {
                        return error.reason ?? "\(error.code)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 5)
        #expect(outcomes.filter { $0 == "EVENT_PHOTO_LIMIT_REACHED" }.count == 11, "\(outcomes)")
        let seen = try await users.momento.getEvent(.init(eventID: event.eventID), options: member.bearer)
        #expect(seen.photoCount == 5)
        #expect(seen.myPhotoCount == 5)
        let own = try await users.momento.listEventPhotos(.init(eventID: event.eventID), options: member.bearer)
        #expect(own.photos.count == 5)
    }

    @Test func beforeTheReveal_countsAndOwnPhotos_afterIt_theGallery_onceAndAnnounced() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let creator = try await users.join("momento")
        let alice = try await users.join("momento")
        let bob = try await users.join("momento")
        let event = try await createEvent(users, by: creator, releaseIn: 2)
        for user in [alice, bob] { _ = try await users.momento.joinEvent(.init(joinCode: event.joinCode), options: user.bearer) }
        let alicePhoto = try await shoot(users, event, as: alice, seed: 1)
        // A real photo, which the gallery serves as its renditions.
        let bobsBytes = try PhotoFixtures.image(width: 1200, height: 900, type: "jpeg", seed: Int.random(in: 0..<Int.max))
        let bobsBlob = try await users.upload(bobsBytes, type: "image/jpeg", as: bob)
        let bobPhoto = try await users.momento.addEventPhoto(.init(eventID: event.eventID, blobID: bobsBlob.blobID), options: bob.bearer)
        _ = try await shoot(users, event, as: creator, seed: 3)

        let before = try await users.momento.listEventPhotos(.init(eventID: event.eventID), options: alice.bearer)
        #expect(!before.revealed)
        #expect(before.photos.map(\.photoID) == [alicePhoto.photoID])
        #expect(try await users.momento.getEvent(.init(eventID: event.eventID), options: alice.bearer).photoCount == 3)
        let peek = await reason {
            _ = try await users.media.getDownloadURL(.init(blobID: bobPhoto.blobID), options: alice.bearer)
        }
        #expect(peek?.reason == "BLOB_NOT_FOUND")

        let revealed = try await waitForReveal(users, event, as: alice)
        #expect(revealed.revealedAt != nil)
        let after = try await users.momento.listEventPhotos(.init(eventID: event.eventID, pageSize: 2), options: alice.bearer)
        #expect(after.revealed)
        #expect(after.photos.count == 2)
        let rest = try await users.momento.listEventPhotos(.init(eventID: event.eventID, pageSize: 2, pageToken: after.nextPageToken),
                                                           options: alice.bearer)
        #expect(rest.photos.count == 1 && rest.nextPageToken.isEmpty)
        let gallery = after.photos + rest.photos
        #expect(Set(gallery.map(\.accountID)) == [alice.id, bob.id, creator.id])
        let bobs = try #require(gallery.first { $0.photoID == bobPhoto.photoID })
        let download = try await Curl.get("http://127.0.0.1:\(users.stack.media.port)\(bobs.url)", http2: true)
        #expect(download.status == 200)
        #expect(ServedImage.jpegSize(download.body).map { [$0.width, $0.height] } == [1200, 900])
        #expect(bobs.thumbnails.map(\.maxSide) == [320, 1080])
        let thumbnail = try await Curl.get("http://127.0.0.1:\(users.stack.media.port)\(bobs.thumbnails[0].url)", http2: true)
        #expect(ServedImage.jpegSize(thumbnail.body).map { [$0.width, $0.height] } == [320, 240])

        let announced = try await revealEvents(of: event.eventID)
        #expect(announced.count == 1)
        let payload = try Momento.EventRevealed(serializedBytes: try #require(announced.first))
        #expect(Set(payload.memberIDs) == [creator.id, alice.id, bob.id])
        #expect(payload.photoCount == 3)
        #expect(payload.galleryLink == "momento://event/\(event.eventID)/gallery")
    }

    @Test func creatorsModerate_membersDeleteOnlyTheirOwn() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let creator = try await users.join("momento")
        let alice = try await users.join("momento")
        let bob = try await users.join("momento")
        let event = try await createEvent(users, by: creator)
        for user in [alice, bob] { _ = try await users.momento.joinEvent(.init(joinCode: event.joinCode), options: user.bearer) }
        let alicePhoto = try await shoot(users, event, as: alice, seed: 11)
        let bobPhoto = try await shoot(users, event, as: bob, seed: 12)
        let refused = await reason {
            _ = try await users.momento.deleteEventPhoto(.init(eventID: event.eventID, photoID: alicePhoto.photoID), options: bob.bearer)
        }
        #expect(refused?.reason == "PHOTO_NOT_FOUND")
        _ = try await users.momento.deleteEventPhoto(.init(eventID: event.eventID, photoID: alicePhoto.photoID), options: creator.bearer)
        _ = try await users.momento.deleteEventPhoto(.init(eventID: event.eventID, photoID: bobPhoto.photoID), options: bob.bearer)
        let seen = try await users.momento.getEvent(.init(eventID: event.eventID), options: alice.bearer)
        #expect(seen.photoCount == 0 && seen.myPhotoCount == 0)
        // An admin made by the creator moderates too; a plain member cannot make admins.
        let promoted = await reason {
            _ = try await users.momento.setMemberRole(.init(eventID: event.eventID, accountID: bob.id, role: .admin), options: alice.bearer)
        }
        #expect(promoted?.reason == "NOT_EVENT_ADMIN")
        let admin = try await users.momento.setMemberRole(.init(eventID: event.eventID, accountID: alice.id, role: .admin),
                                                          options: creator.bearer)
        #expect(admin.role == .admin)
        let bobAgain = try await shoot(users, event, as: bob, seed: 13)
        _ = try await users.momento.deleteEventPhoto(.init(eventID: event.eventID, photoID: bobAgain.photoID), options: alice.bearer)
        #expect(try await users.momento.getEvent(.init(eventID: event.eventID), options: bob.bearer).photoCount == 0)
    }

    @Test func twoMediaInstances_revealEachEventExactlyOnce() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let second = try await users.stack.startAnotherMedia()
        do {
            let creator = try await users.join("momento")
            var events: [Momento.MomentoEvent] = []
            for _ in 0..<12 { events.append(try await createEvent(users, by: creator, releaseIn: 1.5)) }
            for event in events { _ = try await waitForReveal(users, event, as: creator) }
            for event in events {
                #expect(try await revealEvents(of: event.eventID).count == 1, "\(event.eventID)")
            }
        } catch {
            await second.stop()
            throw error
        }
        await second.stop()
    }

    @Test func counterStream_onAnotherInstance_followsJoinsPhotosAndTheReveal() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let second = try await users.stack.startAnotherMedia()
        let watcherClient = RPCClient(host: "127.0.0.1", port: second.port)
        defer { watcherClient.close() }
        do {
            let creator = try await users.join("momento")
            let guest = try await users.join("momento")
            let outsider = try await users.join("momento")
            let event = try await createEvent(users, by: creator, releaseIn: 2)
            let watcher = MomentoEventsClient(client: watcherClient)
            let refused = await reason {
                let call = try await watcher.watchEventCounters(.init(eventID: event.eventID), options: outsider.bearer)
                for try await _ in call { break }
            }
            #expect(refused?.reason == "EVENT_NOT_FOUND")

            let call = try await watcher.watchEventCounters(.init(eventID: event.eventID),
                                                            options: .bearer(creator.token, timeout: .seconds(20)))
            let stopper = Task {
                try await Task.sleep(for: .seconds(20))
                call.cancel()
            }
            defer { stopper.cancel() }
            var updates = call.makeAsyncIterator()
            let first = try #require(try await updates.next())
            #expect((first.memberCount, first.photoCount) == (1, 0))
            _ = try await users.momento.joinEvent(.init(joinCode: event.joinCode), options: guest.bearer)
            let joined = try #require(try await updates.next())
            #expect((joined.memberCount, joined.photoCount) == (2, 0))
            let photo = try await shoot(users, event, as: guest, seed: 30)
            #expect(try #require(try await updates.next()).photoCount == 1)
            _ = try await users.momento.deleteEventPhoto(.init(eventID: event.eventID, photoID: photo.photoID), options: creator.bearer)
            #expect(try #require(try await updates.next()).photoCount == 0)
            let revealed = try #require(try await updates.next())
            #expect(revealed.revealedAt != nil)
            call.cancel()
        } catch {
            await second.stop()
            throw error
        }
        await second.stop()
    }

    /// Polls (bounded) until the event is revealed.
    func waitForReveal(_ users: MediaUsers, _ event: Momento.MomentoEvent, as user: User) async throws -> Momento.MomentoEvent {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let seen = try await users.momento.getEvent(.init(eventID: event.eventID), options: user.bearer)
            if seen.revealedAt != nil { return seen }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw SubprocessError(message: "event \(event.eventID) was never revealed")
    }

    /// The payloads of EventRevealed in media's outbox for `event`.
    func revealEvents(of event: String) async throws -> [[UInt8]] {
        let admin = try await TestDatabase.makeAdminPool()
        defer { admin.close() }
        return try await admin.withConnection { connection in
            try await connection.query("SELECT payload FROM media.outbox WHERE type = 'EventRevealed' AND aggregate_id = $1",
                                       [.text(event)]).map { try $0.decode(0, as: [UInt8].self) }
        }
    }
}
