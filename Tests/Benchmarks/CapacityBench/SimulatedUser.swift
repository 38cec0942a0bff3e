import Contracts
import Foundation
import GatewayClient
import Synchronization
import TestSupport

/// One app install in use: its own connection to the edge (as each phone has), its account and
/// what it shares with its group. `perform` does one action of the user model.
final class SimulatedUser: Sendable {
    let app: UserModel.App
    let client: GatewayClient
    let accountID: String
    /// ÉLITE: the address and password it signed up with (email sign-ins use them again).
    let email: String
    let group: Group
    private let state = Mutex(State())
    private let inbox = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        /// The last feed page's cards (ÉLITE): what the next swipes are about.
        var cards: [String] = []
        /// Messages this user reported in its encounter so far (The Unseen reports a running count).
        var reported: Int32 = 0
    }

    /// What a user shares with the others of its group.
    enum Group: Sendable {
        case none
        case pair(DatingPair)
        case swivo(SwivoGroup)
        case event(String)
        case encounter(String)
        case season(String)
    }

    init(app: UserModel.App, client: GatewayClient, accountID: String, email: String = "", group: Group = .none) {
        self.app = app
        self.client = client
        self.accountID = accountID
        self.email = email
        self.group = group
    }

    /// Does `action`; throws what the service answered when it was not OK.
    func perform(_ action: UserModel.Action, world: World, scheduled: ContinuousClock.Instant) async throws {
        switch action {
        case .feed:
            let cards = try await client.discovery.feed(pageSize: 20).cards.map(\.accountID)
            state.withLock { $0.cards = cards }
        case .swipe:
            let target = state.withLock { $0.cards.isEmpty ? nil : $0.cards.removeFirst() } ?? world.randomProfile()
            _ = try await client.discovery.swipe(accountID: target, Int.random(in: 0..<5) == 0 ? .like : .pass)
        case .send:
            guard case .pair(let pair) = group else { return }
            let clientMessageID = UUID().uuidString
            world.deliveries.expect(clientMessageID, by: pair.other(than: accountID), scheduled: scheduled)
            do {
                _ = try await client.messaging.send(text: "see you at eight?", in: pair.conversationID, clientMessageID: clientMessageID)
            } catch {
                world.deliveries.cancel(clientMessageID)
                throw error
            }
        case .history:
            guard case .pair(let pair) = group else { return }
            _ = try await client.messaging.messages(in: pair.conversationID, pageSize: 30)
        case .unread:
            _ = try await client.messaging.unreadCount()
        case .photoView:
            let set = try await client.profilePhotos.photoSet(of: world.randomDater(except: accountID))
            if let thumbnail = set.photos.first?.thumbnails.first { _ = try await client.media.download(thumbnail.url) }
        case .account:
            _ = try await client.identity.getAccount()
        case .sessionOpen:
            _ = try await client.identity.refreshSession()
            _ = try await client.identity.getAccount()
            listen(world: world)
        case .emailSignIn:
            let device = try world.makeClient(app)
            defer { device.close() }
            _ = try await device.identity.signInWithEmail(email, password: World.password)
        case .signUp:
            let device = try world.makeClient(app)
            defer { device.close() }
            _ = try await device.identity.signUpWithEmail(World.email("cap-new"), password: World.password)
        case .deck:
            guard case .swivo(let swivo) = group else { return }
            _ = try await client.groupSessions.deck(swivo.current.sessionID)
        case .likeOption:
            guard case .swivo(let swivo) = group else { return }
            let session = swivo.current
            guard let option = session.optionIDs.randomElement() else { return }
            let answer = try await client.groupSessions.like(optionID: option, in: session.sessionID)
            if answer.matchFound { await swivo.next(after: session.sessionID, world: world) }
        case .upload:
            guard case .event(let eventID) = group else { return }
            let png = RealPNG.make(width: 640, height: 480, seed: Int.random(in: 0..<Int.max))
            let blob = try await client.media.upload(png, kind: .photo, contentType: "image/png")
            _ = try await client.momento.addPhoto(blobID: blob.blobID, to: eventID)
        case .gallery:
            guard case .event(let eventID) = group else { return }
            _ = try await client.momento.photos(of: eventID, pageSize: 30)
        case .event:
            guard case .event(let eventID) = group else { return }
            _ = try await client.momento.event(eventID)
        case .seasons:
            _ = try await client.production.seasons()
        case .episodes:
            guard case .season(let seasonID) = group else { return }
            _ = try await client.production.episodes(seasonID: seasonID)
        case .reportMessages:
            guard case .encounter(let encounterID) = group else { return }
            let count = state.withLock { $0.reported += 1; return $0.reported }
            _ = try await client.encounters.reportMessages(count, in: encounterID)
        case .encounter:
            guard case .encounter(let encounterID) = group else { return }
            _ = try await client.encounters.encounter(encounterID)
        case .delivery, .nextSession:
            return  // not scheduled (see UserModel.Action)
        }
    }

    /// Holds the user's realtime stream (a new one replacing the old): every message another
    /// user sent it is checked off in `world.deliveries` when it arrives.
    func listen(world: World) {
        let stream = client.realtime.events()
        let id = accountID
        let task = Task {
            do {
                for try await event in stream {
                    if case .message(let received)? = event.event, let message = received.message {
                        world.deliveries.arrived(message.clientMessageID, at: id)
                    }
                }
            } catch {}
        }
        inbox.withLock { $0?.cancel(); $0 = task }
    }

    func close() {
        inbox.withLock { $0?.cancel() }
        client.close()
    }
}

/// Two ÉLITE members who matched, and their conversation.
struct DatingPair: Sendable {
    let members: [String]
    let conversationID: String

    func other(than accountID: String) -> String { members.first { $0 != accountID } ?? accountID }
}

/// Three Swivo devices and the session they swipe in now; a match opens the next one.
final class SwivoGroup: Sendable {
    struct Session: Sendable {
        var sessionID: String
        var optionIDs: [String]
    }

    let devices: Mutex<[GatewayClient]>
    private let session: Mutex<Session>
    private let rotating = Mutex(false)

    init(devices: [GatewayClient], session: Session) {
        self.devices = Mutex(devices)
        self.session = Mutex(session)
    }

    var current: Session { session.withLock { $0 } }

    /// The host opens a session of three and the two guests join it; its deck's options.
    static func open(_ devices: [GatewayClient]) async throws -> Session {
        let created = try await devices[0].groupSessions.create(categoryID: "cuisines", quorum: 3)
        for guest in devices.dropFirst() { _ = try await guest.groupSessions.join(inviteCode: created.inviteCode) }
        let deck = try await devices[0].groupSessions.deck(created.sessionID)
        return Session(sessionID: created.sessionID, optionIDs: deck.options.map(\.optionID))
    }

    /// After `sessionID` matched: the group's next session (once, whichever device saw the match).
    func next(after sessionID: String, world: World) async {
        guard rotating.withLock({ busy in
            guard !busy, session.withLock({ $0.sessionID }) == sessionID else { return false }
            busy = true
            return true
        }) else { return }
        defer { rotating.withLock { $0 = false } }
        let began = ContinuousClock.now
        do {
            let next = try await Self.open(devices.withLock { $0 })
            session.withLock { $0 = next }
            world.book.answered(.nextSession, ContinuousClock.now - began)
        } catch {
            world.book.failed(.nextSession, error, after: ContinuousClock.now - began)
        }
    }
}
