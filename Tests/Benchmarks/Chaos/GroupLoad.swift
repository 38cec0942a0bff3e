import Contracts
import Foundation
import GatewayClient
import Synchronization
import TestSupport

/// Swivo and Momento through the faults. Swivo: three devices open a session of quorum 3 and all
/// like the same option at once; exactly one acknowledged like may find the match. Momento: a
/// new guest joins an event of three photos per member and adds four at once; at most three may
/// be acknowledged.
final class GroupLoad: Sendable {
    /// A Swivo session and its likes' acknowledged answers (true: this like found the match).
    struct Race: Sendable {
        let sessionID: String
        var answers: [Bool]
        var failures: Int
    }

    /// A Momento guest's photos: the acknowledged photo ids and how many adds failed otherwise.
    struct Guest: Sendable {
        let eventID: String
        let accountID: String
        var photoIDs: [String]
        var refused: Int
    }

    static let photoLimit: Int32 = 3
    private let population: Population
    private let races = Mutex<[Race]>([])
    private let guests = Mutex<[Guest]>([])

    init(population: Population) { self.population = population }

    func runSwivo(until end: ContinuousClock.Instant, interval: Duration) async {
        var devices: [Member] = []
        while ContinuousClock.now < end {
            do {
                if devices.count < 3 { devices = try await (0..<3).asyncMap { _ in try await self.population.anonymous("swivo") } }
                try await race(devices)
            } catch {
                // A setup step met a fault: the next round starts over.
            }
            try? await Task.sleep(for: interval)
        }
        devices.forEach { $0.client.close() }
    }

    private func race(_ devices: [Member]) async throws {
        let created = try await devices[0].client.groupSessions.create(categoryID: "cuisines", quorum: 3)
        for guest in devices.dropFirst() { _ = try await guest.client.groupSessions.join(inviteCode: created.inviteCode) }
        guard let pick = try await devices[0].client.groupSessions.deck(created.sessionID).options.first else {
            throw ChaosFailure("the deck has no options")
        }
        let answers = await withTaskGroup(of: Bool?.self) { group in
            for device in devices {
                group.addTask { try? await device.client.groupSessions.like(optionID: pick.optionID, in: created.sessionID).matchFound }
            }
            return await group.reduce(into: [Bool?]()) { $0.append($1) }
        }
        races.withLock {
            $0.append(Race(sessionID: created.sessionID, answers: answers.compactMap { $0 }, failures: answers.filter { $0 == nil }.count))
        }
    }

    func runMomento(until end: ContinuousClock.Instant, interval: Duration) async {
        var eventID: String?
        var code = ""
        var creator: Member?
        while ContinuousClock.now < end {
            do {
                if eventID == nil {
                    let owner = try await population.anonymous("momento")
                    var request = Momento.CreateEventRequest()
                    request.title = "Chaos party"
                    request.maxPhotosPerMember = Self.photoLimit
                    request.releaseAt = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + 86_400) * 1_000_000))
                    let event = try await owner.client.momento.create(request)
                    code = URLComponents(string: event.joinLink).map { String($0.path.dropFirst()) } ?? ""
                    (creator, eventID) = (owner, event.eventID)
                }
                try await addPhotos(to: eventID!, code: code, invitedBy: creator!.accountID)  // set just above
            } catch {
                // A setup step met a fault: the next guest tries again.
            }
            try? await Task.sleep(for: interval)
        }
        creator?.client.close()
    }

    private func addPhotos(to eventID: String, code: String, invitedBy creatorID: String) async throws {
        let guest = try await population.anonymous("momento")
        defer { guest.client.close() }
        _ = try await guest.client.momento.join(joinCode: code, invitedBy: creatorID)
        var blobs: [String] = []
        for index in 0...Int(Self.photoLimit) {
            let png = RealPNG.make(width: 48 + index, height: 32, seed: Int.random(in: 0..<Int.max))
            blobs.append(try await guest.client.media.upload(png, kind: .photo, contentType: "image/png").blobID)
        }
        let added = await withTaskGroup(of: String?.self) { group in
            for blob in blobs { group.addTask { try? await guest.client.momento.addPhoto(blobID: blob, to: eventID).photoID } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        guests.withLock {
            $0.append(Guest(eventID: eventID, accountID: guest.accountID, photoIDs: added.compactMap { $0 },
                            refused: added.filter { $0 == nil }.count))
        }
    }

    var swivoRaces: [Race] { races.withLock { $0 } }
    var momentoGuests: [Guest] { guests.withLock { $0 } }
}

extension Sequence {
    /// `transform` of each element in order, one after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
