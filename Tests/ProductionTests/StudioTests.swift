import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// The studio as hosts run it: curated restaurants (notes for hosts only), shoots that never
/// double-book a restaurant or a person, the pre-shoot checklist computed from the data, and
/// wardrobe with outfits (P8, P9).
@Suite(.productionServices)
struct StudioTests {
    /// A moment far from any other test's shoots (each test picks its own random slot).
    static func slot() -> Int64 {
        let base: Int64 = 1_900_000_000 + Int64.random(in: 0..<1_000_000) * 3_600
        return base * 1_000_000
    }

    @Test func restaurants_areCurated_withFilmingNotesForHostsOnly() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let viewer = try await people.join()
        let all = try await people.studio.listRestaurants(.init(), options: viewer.bearer).restaurants
        #expect(all.count == 25)
        #expect(all.allSatisfy { $0.filmingNotes.isEmpty })
        let forHost = try await people.studio.listRestaurants(.init(), options: host.bearer).restaurants
        #expect(forHost.allSatisfy { !$0.filmingNotes.isEmpty })
        let wynwood = try await people.studio.listRestaurants(.init(neighborhood: "wynwood"), options: viewer.bearer).restaurants
        #expect(!wynwood.isEmpty && wynwood.allSatisfy { $0.neighborhood == "Wynwood" })
        // Nearest first from Little Havana's Calle Ocho.
        let near = try await people.studio.listRestaurants(.init(near: .init(latitude: 25.7655, longitude: -80.2190)),
                                                           options: viewer.bearer).restaurants
        #expect(near.map(\.distanceMeters) == near.map(\.distanceMeters).sorted())
        #expect(["lung-yai", "cafe-la-trova"].contains(near.first?.id))
        let bad = await reason {
            _ = try await people.studio.listRestaurants(.init(near: .init(latitude: 95, longitude: 0)), options: viewer.bearer)
        }
        #expect(bad?.code == .invalidArgument)
    }

    @Test func shoots_neverDoubleBookARestaurantOrAPerson() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let season = try await people.season(by: host)
        let episodes = try await (1...3).asyncMap { number in
            try await people.episodes.createEpisode(.init(seasonID: season.id, number: Int32(number), title: "E\(number)"),
                                                    options: host.bearer)
        }
        let start = Self.slot()
        func schedule(_ episode: Production.Episode, at restaurant: String, offsetMinutes: Int64 = 0,
                      minutes: Int32 = 120) async throws -> Production.Shoot {
            try await people.studio.scheduleShoot(.init(episodeID: episode.id, restaurantID: restaurant,
                                                        startsAt: Timestamp(microseconds: start + offsetMinutes * 60_000_000),
                                                        durationMinutes: minutes), options: host.bearer)
        }
        // Two producers booking the same table at the same time: exactly one gets it.
        async let a: Production.Shoot? = try? schedule(episodes[0], at: "hiden")
        async let b: Production.Shoot? = try? schedule(episodes[1], at: "hiden", offsetMinutes: 60)
        let (first, second) = await (a, b)
        #expect((first == nil) != (second == nil))
        let booked = first == nil ? episodes[1] : episodes[0]
        let other = first == nil ? episodes[0] : episodes[1]
        var failure = await reason { _ = try await schedule(other, at: "hiden", offsetMinutes: 30) }
        #expect(failure?.reason == "SCHEDULE_CONFLICT")
        // Right after is fine, and so is elsewhere at the same time.
        _ = try await schedule(other, at: "hiden", offsetMinutes: 180)
        _ = try await schedule(episodes[2], at: "kyu", offsetMinutes: 30)

        // Moving a booked shoot onto another's restaurant and time is refused too.
        failure = await reason { _ = try await schedule(booked, at: "kyu", offsetMinutes: 0) }
        #expect(failure?.reason == "SCHEDULE_CONFLICT")

        let calendar = try await people.studio.getCalendar(.init(from: Timestamp(microseconds: start - 60_000_000),
                                                                 to: Timestamp(microseconds: start + 86_400_000_000)),
                                                           options: host.bearer)
        #expect(Set(calendar.shoots.map(\.episodeID)) == Set(episodes.map(\.id)))
        #expect(calendar.conflicts.isEmpty)
        failure = await reason { _ = try await schedule(booked, at: "nowhere") }
        #expect(failure?.reason == "RESTAURANT_NOT_FOUND")
        failure = await reason {
            _ = try await people.studio.getCalendar(.init(from: Timestamp(microseconds: start), to: Timestamp(microseconds: start)),
                                                    options: host.bearer)
        }
        #expect(failure?.code == .invalidArgument)
        let viewer = try await people.join()
        failure = await reason {
            _ = try await people.studio.getCalendar(.init(from: Timestamp(microseconds: start), to: Timestamp(microseconds: start + 1)),
                                                    options: viewer.bearer)
        }
        #expect(failure?.reason == "PRODUCER_ONLY")
    }

    /// google.protobuf.Timestamp holds years 1-9999 and nanos 0-999,999,999; anything else a
    /// client sends is refused (it used to be clamped and saved).
    @Test(arguments: [Timestamp(seconds: Timestamp.maximumSeconds + 1), Timestamp(seconds: Timestamp.minimumSeconds - 1),
                      Timestamp(seconds: 1_900_000_000, nanos: -1), Timestamp(seconds: 1_900_000_000, nanos: -5),
                      Timestamp(seconds: 1_900_000_000, nanos: 1_500_000_000)])
    func timesOutsideTimestampsRange_areInvalidArguments(time: Timestamp) async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let episode = try await people.episode(by: host)
        var failure = await reason {
            _ = try await people.studio.scheduleShoot(.init(episodeID: episode.id, restaurantID: "hiden", startsAt: time,
                                                            durationMinutes: 60), options: host.bearer)
        }
        #expect(failure?.code == .invalidArgument)
        #expect(failure?.reason == "INVALID_ARGUMENT_VALUE")
        // Nothing was saved where clamping would have put it.
        let clamped = time.microseconds
        let window = (max(clamped - 86_400_000_000, Timestamp.minimumSeconds * 1_000_000),
                      min(clamped + 86_400_000_000, Timestamp.maximumSeconds * 1_000_000 + 999_999))
        let calendar = try await people.studio.getCalendar(.init(from: Timestamp(microseconds: window.0),
                                                                 to: Timestamp(microseconds: window.1)), options: host.bearer)
        #expect(!calendar.shoots.contains { $0.episodeID == episode.id })
        let valid = Timestamp(seconds: 1_900_000_000)
        for (from, to) in [(time, valid), (valid, time)] {
            failure = await reason { _ = try await people.studio.getCalendar(.init(from: from, to: to), options: host.bearer) }
            #expect(failure?.code == .invalidArgument)
            #expect(failure?.reason == "INVALID_ARGUMENT_VALUE")
        }
        failure = await reason {
            _ = try await people.dates.proposeDate(.init(matchID: UUID().uuidString.lowercased(), restaurantID: "hiden",
                                                         scheduledAt: time), options: host.bearer)
        }
        #expect(failure?.code == .invalidArgument)
        #expect(failure?.reason == "INVALID_ARGUMENT_VALUE")
    }

    @Test func checklist_turnsGreenItemByItem_fromTheData() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        var episode = try await people.confirmDeal(of: try await people.episode(by: host), by: host)
        episode = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .casting), options: host.bearer)
        var checklist = try await people.studio.getChecklist(.init(episodeID: episode.id), options: host.bearer)
        #expect(checklist == Production.Checklist(episodeID: episode.id))

        var failure = await reason {
            _ = try await people.studio.updateChecklist(.init(episodeID: episode.id, updateMask: ["restaurant_confirmed"],
                                                              restaurantConfirmed: true), options: host.bearer)
        }
        #expect(failure?.code == .failedPrecondition, "no restaurant to confirm yet")
        #expect(failure?.reason == "SHOOT_NOT_SCHEDULED")
        _ = try await people.studio.scheduleShoot(.init(episodeID: episode.id, restaurantID: "versailles",
                                                        startsAt: Timestamp(microseconds: Self.slot()), durationMinutes: 90),
                                                  options: host.bearer)
        checklist = try await people.studio.updateChecklist(.init(episodeID: episode.id, updateMask: ["restaurant_confirmed"],
                                                                  restaurantConfirmed: true), options: host.bearer)
        #expect(checklist.restaurantConfirmed && !checklist.talentConfirmed)

        let (_, talent) = try await people.cast(try await people.join(), legalName: "Rosa Marin", in: episode, by: host)
        checklist = try await people.studio.getChecklist(.init(episodeID: episode.id), options: host.bearer)
        #expect(checklist.talentConfirmed && !checklist.consentSigned)
        _ = try await people.captureConsent(.init(episodeID: episode.id, participantAccountID: talent.id, typedName: "Rosa Marin",
                                                  signatureMediaID: "sig"), by: host)

        let dress = try await people.studio.addWardrobeItem(.init(name: "Red dress", category: "dress",
                                                                  cost: .init(amountMinor: 180_00, currency: "USD")),
                                                            options: host.bearer)
        let loan = try await people.studio.addWardrobeItem(.init(name: "Gold earrings", category: "accessory",
                                                                 cost: .init(amountMinor: 0, currency: "USD"), sponsor: "Aurelia"),
                                                           options: host.bearer)
        failure = await reason {
            _ = try await people.studio.logOutfit(.init(episodeID: episode.id, itemID: dress.id, wornBy: host.id), options: host.bearer)
        }
        #expect(failure?.reason == "NOT_CAST")
        for item in [dress, loan, dress] {
            _ = try await people.studio.logOutfit(.init(episodeID: episode.id, itemID: item.id, wornBy: talent.id), options: host.bearer)
        }
        let outfits = try await people.studio.listOutfits(.init(episodeID: episode.id), options: host.bearer)
        #expect(outfits.outfits.count == 2, "logging the same item on the same person twice is one outfit")
        #expect(outfits.totalCost == [.init(amountMinor: 180_00, currency: "USD")])

        checklist = try await people.studio.updateChecklist(.init(episodeID: episode.id, updateMask: ["equipment_packed"],
                                                                  equipmentPacked: true), options: host.bearer)
        #expect(checklist.restaurantConfirmed && checklist.talentConfirmed && checklist.consentSigned && checklist.outfitLogged
                && checklist.equipmentPacked && checklist.ready)

        for person in [talent, try await people.join()] {
            failure = await reason { _ = try await people.studio.getChecklist(.init(episodeID: episode.id), options: person.bearer) }
            #expect(failure?.reason == "PRODUCER_ONLY")
            failure = await reason { _ = try await people.studio.listWardrobe(.init(), options: person.bearer) }
            #expect(failure?.reason == "PRODUCER_ONLY")
        }
        failure = await reason {
            _ = try await people.studio.addWardrobeItem(.init(name: "Hat", category: "hat", cost: .init(amountMinor: -1, currency: "USD")),
                                                        options: host.bearer)
        }
        #expect(failure?.reason == "INVALID_MONEY")
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// A recurring cast member: cast in two episodes, never in two shoots at once.
@Suite(.productionServices)
struct RecurringCastTests {
    @Test func aPersonCastInTwoEpisodes_cannotShootBothAtOnce() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let season = try await people.season(by: host)
        var episodes: [Production.Episode] = []
        for number in [Int32(1), 2] {
            var episode = try await people.episodes.createEpisode(.init(seasonID: season.id, number: number, title: "E\(number)"),
                                                                  options: host.bearer)
            episode = try await people.confirmDeal(of: episode, by: host)
            episodes.append(try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .casting),
                                                                        options: host.bearer))
        }
        let (application, favourite) = try await people.cast(try await people.join(), legalName: "Fan Favourite", in: episodes[0],
                                                             by: host)
        let again = try await people.casting.assignToEpisode(.init(applicationID: application.id, episodeID: episodes[1].id),
                                                             options: host.bearer)
        #expect(again.episodeIDs == episodes.map(\.id) && again.episodeID == episodes[1].id)
        let start = StudioTests.slot()
        _ = try await people.studio.scheduleShoot(.init(episodeID: episodes[0].id, restaurantID: "zuma",
                                                        startsAt: Timestamp(microseconds: start), durationMinutes: 120),
                                                  options: host.bearer)
        let failure = await reason {
            _ = try await people.studio.scheduleShoot(.init(episodeID: episodes[1].id, restaurantID: "ariete",
                                                            startsAt: Timestamp(microseconds: start + 3_600_000_000),
                                                            durationMinutes: 120), options: host.bearer)
        }
        #expect(failure?.reason == "SCHEDULE_CONFLICT")
        _ = try await people.studio.scheduleShoot(.init(episodeID: episodes[1].id, restaurantID: "ariete",
                                                        startsAt: Timestamp(microseconds: start + 3 * 3_600_000_000),
                                                        durationMinutes: 120), options: host.bearer)
        // Each episode's gate wants this person's consent for that episode.
        _ = try await people.captureConsent(.init(episodeID: episodes[0].id, participantAccountID: favourite.id,
                                                  typedName: "Fan Favourite", signatureMediaID: "sig"), by: host)
        _ = try await people.episodes.advanceProduction(.init(episodeID: episodes[0].id, status: .scheduled), options: host.bearer)
        let gate = await reason {
            _ = try await people.episodes.advanceProduction(.init(episodeID: episodes[1].id, status: .scheduled), options: host.bearer)
        }
        #expect(gate?.reason == "CONSENT_REQUIRED")
    }
}
