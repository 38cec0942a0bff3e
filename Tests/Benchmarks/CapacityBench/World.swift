import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import Journeys
import Synchronization
import TestSupport

/// Everyone the benchmark has brought in so far, grown group by group to a step's number of
/// active users (setting users up is not measured), plus the ÉLITE operator accounts, the
/// seeded profiles the feeds rank and the current step's `LatencyBook`.
final class World: Sendable {
    static let password = "correct horse battery staple"

    let stack: JourneyStack
    /// The ÉLITE members seeded in discovery's projection by capacity_bench.py (ids end in their
    /// number, as the script writes them); swipes beyond a feed page go to them.
    let seededProfiles: Int
    let deliveries: Deliveries
    private let currentBook = BookSlot()
    private let people = Mutex<[SimulatedUser]>([])
    private let operators: Operators

    /// The city the ÉLITE members live in: seeded profiles and users in a 2°×2° box around it.
    static let city = (latitude: 40.7, longitude: -74.0)

    private struct Operators: Sendable {
        var moderator: GatewayClient
        var seasonID: String
    }

    var book: LatencyBook { currentBook.book }
    var users: [SimulatedUser] { people.withLock { $0 } }

    /// Starts a new step's book; returns it.
    func newBook() -> LatencyBook {
        let book = LatencyBook()
        currentBook.book = book
        return book
    }

    private init(stack: JourneyStack, seededProfiles: Int, operators: Operators) {
        self.stack = stack
        self.seededProfiles = seededProfiles
        self.operators = operators
        let slot = currentBook
        self.deliveries = Deliveries(book: { slot.book })
    }

    /// The ÉLITE moderator (an admin by the operator's grant-role) and a FirstDate season made
    /// by a host, as the apps' operators set them up.
    static func make(stack: JourneyStack, seededProfiles: Int) async throws -> World {
        let moderator = try makeClient(stack, .elite)
        let account = try await moderator.identity.signUpWithEmail(email("cap-mod"), password: password)
        try await stack.grantRole("admin", to: account.id, app: "elite")
        _ = try await moderator.identity.refreshSession()
        let host = try makeClient(stack, .firstdate)
        defer { host.close() }
        let hostAccount = try await host.identity.signUpWithEmail(email("cap-host"), password: password)
        try await stack.grantRole("host", to: hostAccount.id, app: "firstdate")
        _ = try await host.identity.refreshSession()
        let season = try await retrying(while: "SEASON_EXISTS") {
            try await host.production.createSeason(number: Int32.random(in: 1...999), title: "Capacity")
        }
        _ = try await host.production.createEpisode(seasonID: season.id, number: 1, title: "Pilot")
        return World(stack: stack, seededProfiles: seededProfiles, operators: Operators(moderator: moderator, seasonID: season.id))
    }

    /// Brings in users until each app has its share of `total` (whole groups, several groups at
    /// once); returns how many were added.
    func grow(to total: Int) async throws -> Int {
        let wanted = UserModel.split(total)
        var added = 0
        for app in UserModel.App.allCases {
            let have = users.filter { $0.app == app }.count
            let groups = max(0, ((wanted[app] ?? 0) - have) / app.groupSize)
            try await withThrowingTaskGroup(of: [SimulatedUser].self) { tasks in
                var next = 0
                while next < min(groups, 8) { tasks.addTask { try await self.makeGroup(app) }; next += 1 }
                while let group = try await tasks.next() {
                    people.withLock { $0 += group }
                    added += group.count
                    if next < groups { tasks.addTask { try await self.makeGroup(app) }; next += 1 }
                }
            }
        }
        return added
    }

    /// One group, tried up to three times (a call lost to a busy moment is tried again, as an
    /// app would; its clients are closed).
    private func makeGroup(_ app: UserModel.App) async throws -> [SimulatedUser] {
        var attempt = 1
        while true {
            do {
                return try await makeGroupOnce(app)
            } catch where attempt < 3 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    private func makeGroupOnce(_ app: UserModel.App) async throws -> [SimulatedUser] {
        switch app {
        case .elite: try await makeDatingPair()
        case .swivo: try await makeSwivoGroup()
        case .momento: try await makeEventGuests()
        case .firstdate: [try await makeViewer()]
        case .unseen: try await makeEncounter()
        }
    }

    /// Two admitted ÉLITE members on the plus tier (unlimited likes), each with a photo and a
    /// profile in the city, who liked each other: their match's conversation.
    private func makeDatingPair() async throws -> [SimulatedUser] {
        var members: [(GatewayClient, String, String)] = []
        for _ in 0..<2 {
            let client = try makeClient(.elite)
            let address = Self.email("cap")
            let account = try await client.identity.signUpWithEmail(address, password: Self.password)
            _ = try await operators.moderator.membership.approveMember(accountID: account.id)
            _ = try await operators.moderator.membership.setTier(accountID: account.id, tier: "plus")
            _ = try await client.identity.refreshSession()
            let blob = try await client.media.upload(RealPNG.make(width: 320, height: 240, seed: Int.random(in: 0..<Int.max)),
                                                     kind: .photo, contentType: "image/png")
            _ = try await client.profilePhotos.add(blob.blobID)
            var fields = Profiles.ProfileFields()
            fields.displayName = "Member"
            fields.bio = "Jazz, sailing and Cuban food"
            fields.tags = ["t\(Int.random(in: 0..<50))", "t\(Int.random(in: 0..<37))"]
            fields.location = Profiles.GeoPoint(latitude: Self.city.latitude + Double.random(in: -1...1),
                                                longitude: Self.city.longitude + Double.random(in: -1...1))
            fields.active = true
            _ = try await client.profiles.updateProfile(fields, mask: ["display_name", "bio", "tags", "location", "active"])
            members.append((client, account.id, address))
        }
        let (a, b) = (members[0], members[1])
        // Discovery learns of the profiles from identity's events: retried until it has.
        _ = try await Self.retrying(while: "USER_NOT_FOUND") { try await a.0.discovery.swipe(accountID: b.1, .like) }
        guard let match = try await Self.retrying(while: "USER_NOT_FOUND", { try await b.0.discovery.swipe(accountID: a.1, .like) }).match
        else { throw SubprocessError(message: "two likes made no match") }
        _ = try await Self.retrying(while: "CONVERSATION_NOT_FOUND") { try await a.0.messaging.conversation(match.matchID) }
        let pair = DatingPair(members: [a.1, b.1], conversationID: match.matchID)
        return members.map { member in
            let user = SimulatedUser(app: .elite, client: member.0, accountID: member.1, email: member.2, group: .pair(pair))
            user.listen(world: self)
            return user
        }
    }

    private func makeSwivoGroup() async throws -> [SimulatedUser] {
        var devices: [(GatewayClient, String)] = []
        for _ in 0..<3 {
            let client = try makeClient(.swivo)
            devices.append((client, try await client.identity.signInAnonymously().id))
        }
        let group = SwivoGroup(devices: devices.map(\.0), session: try await SwivoGroup.open(devices.map(\.0)))
        return devices.map { SimulatedUser(app: .swivo, client: $0.0, accountID: $0.1, group: .swivo(group)) }
    }

    /// An event a month from its reveal (the party is on) and its ten guests, the first its creator.
    private func makeEventGuests() async throws -> [SimulatedUser] {
        let creator = try makeClient(.momento)
        let creatorID = try await creator.identity.signInAnonymously().id
        var request = Momento.CreateEventRequest()
        request.title = "Capacity party"
        request.maxPhotosPerMember = 100
        request.releaseAt = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + 30 * 86_400) * 1_000_000))
        let event = try await creator.momento.create(request)
        guard let code = URLComponents(string: event.joinLink).map({ String($0.path.dropFirst()) }), !code.isEmpty else {
            throw SubprocessError(message: "the event's join link has no code: \(event.joinLink)")
        }
        var guests = [SimulatedUser(app: .momento, client: creator, accountID: creatorID, group: .event(event.eventID))]
        for _ in 1..<UserModel.App.momento.groupSize {
            let client = try makeClient(.momento)
            let id = try await client.identity.signInAnonymously().id
            _ = try await client.momento.join(joinCode: code, invitedBy: creatorID)
            guests.append(SimulatedUser(app: .momento, client: client, accountID: id, group: .event(event.eventID)))
        }
        return guests
    }

    private func makeViewer() async throws -> SimulatedUser {
        let client = try makeClient(.firstdate)
        let account = try await client.identity.signUpWithEmail(Self.email("cap-viewer"), password: Self.password)
        return SimulatedUser(app: .firstdate, client: client, accountID: account.id, group: .season(operators.seasonID))
    }

    private func makeEncounter() async throws -> [SimulatedUser] {
        let (a, b) = (try makeClient(.unseen), try makeClient(.unseen))
        let idA = try await a.identity.signInAnonymously().id
        let idB = try await b.identity.signInAnonymously().id
        let encounterID = try await a.encounters.start().encounterID
        _ = try await b.encounters.join(encounterID)
        return [SimulatedUser(app: .unseen, client: a, accountID: idA, group: .encounter(encounterID)),
                SimulatedUser(app: .unseen, client: b, accountID: idB, group: .encounter(encounterID))]
    }

    /// A seeded ÉLITE profile's account id (capacity_bench.py's numbering).
    func randomProfile() -> String {
        "00000000-0000-4000-9000-" + String(String(Int.random(in: 1...max(1, seededProfiles)), radix: 16)).leftPadded(to: 12)
    }

    /// Another ÉLITE user's account id (their photo sets have photos).
    func randomDater(except accountID: String) -> String {
        let daters = users.filter { $0.app == .elite && $0.accountID != accountID }
        return daters.randomElement()?.accountID ?? accountID
    }

    func makeClient(_ app: UserModel.App) throws -> GatewayClient { try Self.makeClient(stack, app) }

    static func makeClient(_ stack: JourneyStack, _ app: UserModel.App) throws -> GatewayClient {
        var configuration = GatewayConfiguration(host: stack.edgeHost, port: stack.edgePort, security: stack.edgeSecurity,
                                                 app: app.rawValue, deviceName: "capacity")
        configuration.defaultDeadline = .seconds(5)
        return try GatewayClient(configuration: configuration, tokenStore: InMemoryTokenStore())
    }

    static func email(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(13).lowercased())@example.com" }

    /// Calls `call` again while it fails with `reason` (something another service has not yet
    /// learned from an event, a number taken), for up to 30 s.
    static func retrying<T: Sendable>(while reason: String, _ call: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try await call()
            } catch let error as GatewayError where error.reason == reason && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    func close() {
        users.forEach { $0.close() }
        operators.moderator.close()
    }
}

/// The current step's book, which every recorder reads when it records.
final class BookSlot: Sendable {
    private let current = Mutex(LatencyBook())

    var book: LatencyBook {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
