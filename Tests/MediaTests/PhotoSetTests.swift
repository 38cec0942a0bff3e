import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// Profile photo sets through the real executables: order, the app's limits (ÉLITE at most 6,
/// FirstDate at least 1 once onboarding is complete), races into the last place, ownership.
@Suite(.mediaServices, .serialized)
struct PhotoSetTests {
    func photos(_ count: Int, of user: User, users: MediaUsers) async throws -> [Media.Blob] {
        var blobs: [Media.Blob] = []
        for index in 0..<count {
            blobs.append(try await users.upload(ImageFixtures.png(width: UInt32(100 + index), size: 3_000, seed: UInt8(index)),
                                                as: user))
        }
        return blobs
    }

    @Test func elite_addsUpToSix_inOrder_andRefusesTheSeventh() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let member = try await users.join("elite")
        let blobs = try await photos(7, of: member, users: users)
        var set = ProfilePhotos.PhotoSet()
        for blob in blobs.prefix(6) {
            set = try await users.photos.addPhoto(.init(blobID: blob.blobID), options: member.bearer)
        }
        #expect(set.photos.map(\.blobID) == blobs.prefix(6).map(\.blobID))
        #expect((set.minimum, set.maximum) == (0, 6))
        #expect(set.photos.first?.width == 100)
        let seventh = await reason { _ = try await users.photos.addPhoto(.init(blobID: blobs[6].blobID), options: member.bearer) }
        #expect(seventh?.code == .failedPrecondition)
        #expect(seventh?.reason == "PHOTO_LIMIT_REACHED")
        // Adding one already there changes nothing, even at the limit.
        let again = try await users.photos.addPhoto(.init(blobID: blobs[0].blobID), options: member.bearer)
        #expect(again.photos.count == 6)
    }

    @Test func concurrentAdds_intoTheLastPlace_exactlyOneWins() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let member = try await users.join("elite")
        let blobs = try await photos(9, of: member, users: users)
        for blob in blobs.prefix(5) { _ = try await users.photos.addPhoto(.init(blobID: blob.blobID), options: member.bearer) }
        let outcomes = await withTaskGroup(of: String?.self) { group in
            for blob in blobs.suffix(4) {
                group.addTask { await reason { _ = try await users.photos.addPhoto(.init(blobID: blob.blobID), options: member.bearer) }?.reason }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.filter { $0 == "PHOTO_LIMIT_REACHED" }.count == 3)
        let set = try await users.photos.getPhotoSet(.init(), options: member.bearer)
        #expect(set.photos.count == 6)
    }

    @Test func reorder_insertAt_remove_andReadByOthersOfTheApp() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let member = try await users.join("swivo")
        let blobs = try await photos(4, of: member, users: users)
        let ids = blobs.map(\.blobID)
        for id in ids.prefix(3) { _ = try await users.photos.addPhoto(.init(blobID: id), options: member.bearer) }
        let inserted = try await users.photos.addPhoto(.init(blobID: ids[3], position: 2), options: member.bearer)
        #expect(inserted.photos.map(\.blobID) == [ids[0], ids[3], ids[1], ids[2]])
        let reordered = try await users.photos.reorderPhotos(.init(blobIDs: [ids[2], ids[0], ids[1], ids[3]]), options: member.bearer)
        #expect(reordered.photos.map(\.blobID) == [ids[2], ids[0], ids[1], ids[3]])
        for bad in [[ids[2], ids[0], ids[1]], [ids[2], ids[0], ids[1], ids[3], ids[3]], [ids[2], ids[0], ids[1], UUID().uuidString],
                    ["nope"]] {
            let refused = await reason { _ = try await users.photos.reorderPhotos(.init(blobIDs: bad), options: member.bearer) }
            #expect(refused?.reason == "INVALID_ORDER")
        }
        let removed = try await users.photos.removePhoto(.init(blobID: ids[0]), options: member.bearer)
        #expect(removed.photos.map(\.blobID) == [ids[2], ids[1], ids[3]])
        let other = try await users.join("swivo")
        let seen = try await users.photos.getPhotoSet(.init(accountID: member.id), options: other.bearer)
        #expect(seen.photos.map(\.blobID) == [ids[2], ids[1], ids[3]])
        let foreign = try await users.join("unseen")
        let hidden = try await users.photos.getPhotoSet(.init(accountID: member.id), options: foreign.bearer)
        #expect(hidden.photos.isEmpty)
    }

    @Test func onlyTheCallersOwnPhotos_canBeAdded() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let member = try await users.join("swivo")
        let other = try await users.join("swivo")
        let theirs = try await users.upload(ImageFixtures.png(size: 3_000, seed: 40), as: other)
        let signature = try await users.upload(ImageFixtures.png(size: 3_000, seed: 41), kind: .consentSignature, as: member)
        for blob in [theirs, signature] {
            let refused = await reason { _ = try await users.photos.addPhoto(.init(blobID: blob.blobID), options: member.bearer) }
            #expect(refused?.reason == "NOT_A_PHOTO")
        }
        let malformed = await reason { _ = try await users.photos.addPhoto(.init(blobID: "x"), options: member.bearer) }
        #expect(malformed?.reason == "INVALID_BLOB_ID")
    }

    @Test func firstDate_keepsOnePhoto_onceOnboardingIsComplete() async throws {
        let users = try MediaUsers.make()
        defer { users.close() }
        let viewer = try await users.join("firstdate")
        let blobs = try await photos(2, of: viewer, users: users)
        for blob in blobs { _ = try await users.photos.addPhoto(.init(blobID: blob.blobID), options: viewer.bearer) }
        // Before onboarding is complete the set may be emptied.
        _ = try await users.photos.removePhoto(.init(blobID: blobs[0].blobID), options: viewer.bearer)
        let empty = try await users.photos.removePhoto(.init(blobID: blobs[1].blobID), options: viewer.bearer)
        #expect(empty.photos.isEmpty)
        #expect(empty.minimum == 1)
        for blob in blobs { _ = try await users.photos.addPhoto(.init(blobID: blob.blobID), options: viewer.bearer) }

        var fields = Profiles.ProfileFields()
        fields.onboardingComplete = true
        fields.birthDate = Profiles.CalendarDate(year: 1990, month: 1, day: 1)
        fields.displayName = "Viewer"
        _ = try await ProfilesClient(client: users.identity.client)
            .updateProfile(.init(fields: fields, updateMask: ["onboarding_complete", "birth_date", "display_name"]),
                           options: viewer.bearer)
        try await waitForOnboarding(of: viewer)

        _ = try await users.photos.removePhoto(.init(blobID: blobs[0].blobID), options: viewer.bearer)
        let last = await reason { _ = try await users.photos.removePhoto(.init(blobID: blobs[1].blobID), options: viewer.bearer) }
        #expect(last?.code == .failedPrecondition)
        #expect(last?.reason == "PHOTO_REQUIRED")
        #expect(try await users.photos.getPhotoSet(.init(), options: viewer.bearer).photos.map(\.blobID) == [blobs[1].blobID])
    }

    /// Waits (bounded) until media has applied the ProfileUpdated that completed onboarding.
    func waitForOnboarding(of user: User) async throws {
        let admin = try await TestDatabase.makeAdminPool()
        defer { admin.close() }
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let done = try await admin.withConnection { connection in
                try await connection.query("SELECT onboarding_complete FROM media.accounts WHERE account_id = $1::uuid",
                                           [.text(user.id)]).first?.decode(0, as: Bool.self) ?? false
            }
            if done { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("media never saw the completed onboarding")
    }
}
