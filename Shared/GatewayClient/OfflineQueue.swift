public import ContractTypes
public import Foundation
public import RPCCore
import Synchronization

/// Swipes, Swivo likes and messages made while the phone is offline, kept (in a store that
/// outlives the app, e.g. `FileOfflineQueueStore`) and sent in order once the network is back.
///
/// Each action carries its idempotency key from the moment it is queued: a message its
/// `clientMessageID`, a swipe the account swiped, a like the option. Sending one again after an
/// answer was lost (a dropped connection, a deadline) therefore never makes a second message,
/// swipe or like: the server answers with the first (`replayed` for a message).
///
/// ```swift
/// let queue = OfflineQueue(client: client, store: FileOfflineQueueStore(path: queueFile))
/// switch await queue.send(text: "on my way", in: conversationID) {
/// case .sent(_, .message(let response)): show(response.message)
/// case .queued(let item): showPending(item)          // offline: sent by a later flush()
/// case .failed(_, let error): showError(error)       // refused for good (e.g. CONVERSATION_CLOSED)
/// default: break
/// }
/// // When the network comes back (or at launch):
/// for outcome in await queue.flush() { … }
/// ```
///
/// Actions leave the queue in the order they entered it: a new action waits behind those still
/// queued, so a conversation's messages arrive as they were written. An action is kept while the
/// failure is one that passes (no network, the server unavailable or too slow, no session until
/// the user signs in again); any other answer is final and the action is dropped with it.
public actor OfflineQueue {
    /// One queued action, with the key that makes sending it again harmless.
    public struct Item: Codable, Sendable, Hashable, Identifiable {
        /// The idempotency key: a message's client message id; `swipe:<account>` for a swipe,
        /// `like:<session>:<option>` for a Swivo like (the server records each of those once).
        public let id: String
        public let action: Action
        public let queuedAt: Date
        /// Attempts that failed in a way that passes.
        public internal(set) var failedAttempts: Int
    }

    /// What an app can queue.
    public enum Action: Codable, Sendable, Hashable {
        /// `Discovery.SwipeAction`'s raw value (`SwipeAction(rawValue:)` gives it back).
        case swipe(accountID: String, action: Int32)
        case groupSessionLike(sessionID: String, optionID: String)
        case text(conversationID: String, clientMessageID: String, text: String)
        case photo(conversationID: String, clientMessageID: String, mediaID: String)
    }

    /// The server's answer to a sent action.
    public enum Response: Sendable {
        case swipe(Discovery.SwipeResponse)
        case groupSessionLike(Sessions.LikeOptionResponse)
        case message(Messaging.SendMessageResponse)
    }

    /// What became of one action.
    public enum Outcome: Sendable {
        /// The server took it.
        case sent(Item, Response)
        /// Still queued: the network or the server is not there yet (the error says which).
        case queued(Item, GatewayError?)
        /// Refused for good (or the queue is full); no longer queued.
        case failed(Item, GatewayError)
    }

    /// Queued actions beyond this are refused (RESOURCE_EXHAUSTED) rather than kept.
    public let capacity: Int
    private let client: GatewayClient
    private let store: any OfflineQueueStore
    private let attemptDeadline: Duration
    private var items: [Item]?
    /// The flush under way; a second waits for it (actors re-enter at every await).
    private var flushing: Task<[Outcome], Never>?
    /// Keys a `submit` waits on, and what became of those another caller's flush settled.
    private var awaited: Set<String> = []
    private var settled: [String: Outcome] = [:]

    /// `attemptDeadline` bounds each send attempt (a flush of many actions takes longer).
    public init(client: GatewayClient, store: any OfflineQueueStore = InMemoryOfflineQueueStore(),
                capacity: Int = 1_000, attemptDeadline: Duration = .seconds(10)) {
        self.client = client
        self.store = store
        self.capacity = capacity
        self.attemptDeadline = attemptDeadline
    }

    /// The actions not sent yet, oldest first.
    public func pending() throws(GatewayError) -> [Item] {
        try loaded()
    }

    /// Swipes now, or later when offline.
    public func swipe(accountID: String, _ action: Discovery.SwipeAction) async -> Outcome {
        await submit(Item(id: "swipe:\(accountID)", action: .swipe(accountID: accountID, action: action.rawValue),
                          queuedAt: Date(), failedAttempts: 0))
    }

    /// Likes a Swivo option now, or later when offline.
    public func like(optionID: String, in sessionID: String) async -> Outcome {
        await submit(Item(id: "like:\(sessionID):\(optionID)", action: .groupSessionLike(sessionID: sessionID, optionID: optionID),
                          queuedAt: Date(), failedAttempts: 0))
    }

    /// Sends a text now, or later when offline.
    public func send(text: String, in conversationID: String, clientMessageID: String = UUID().uuidString) async -> Outcome {
        await submit(Item(id: clientMessageID, action: .text(conversationID: conversationID, clientMessageID: clientMessageID, text: text),
                          queuedAt: Date(), failedAttempts: 0))
    }

    /// Sends an uploaded photo (its media id) now, or later when offline.
    public func send(photo mediaID: String, in conversationID: String, clientMessageID: String = UUID().uuidString) async -> Outcome {
        await submit(Item(id: clientMessageID, action: .photo(conversationID: conversationID, clientMessageID: clientMessageID, mediaID: mediaID),
                          queuedAt: Date(), failedAttempts: 0))
    }

    /// Sends every queued action in order, stopping at the first that cannot be sent yet; the
    /// outcome of each action tried. Call it when the network comes back and at launch.
    public func flush() async -> [Outcome] {
        while let running = flushing {
            _ = await running.value
            if flushing == running { flushing = nil }
        }
        let task = Task { await self.drain() }
        flushing = task
        let outcomes = await task.value
        if flushing == task { flushing = nil }
        return outcomes
    }

    // MARK: Queueing and sending

    /// Queues `item` (the same key twice is one action) and flushes; the outcome of `item`.
    private func submit(_ item: Item) async -> Outcome {
        do {
            var queued = try loaded()
            if !queued.contains(where: { $0.id == item.id }) {
                guard queued.count < capacity else {
                    return .failed(item, RPCError(code: .resourceExhausted,
                                                  message: "the offline queue holds \(capacity) actions; flush it before queueing more"))
                }
                queued.append(item)
                try save(queued)
            }
        } catch {
            return .failed(item, error)
        }
        awaited.insert(item.id)
        defer {
            awaited.remove(item.id)
            settled[item.id] = nil
        }
        let outcomes = await flush()
        if let outcome = outcomes.last(where: { $0.item.id == item.id }) ?? settled[item.id] { return outcome }
        // Not tried: an action ahead of it could not be sent yet.
        let stillQueued = (try? loaded())?.first(where: { $0.id == item.id }) ?? item
        return .queued(stillQueued, outcomes.last?.error)
    }

    private func drain() async -> [Outcome] {
        var outcomes: [Outcome] = []
        while true {
            let next: Item
            do {
                guard let first = try loaded().first else { return outcomes }
                next = first
            } catch {
                return outcomes
            }
            do {
                let response = try await send(next.action)
                try? remove(next.id)
                record(.sent(next, response), into: &outcomes)
            } catch {
                if Self.passes(error) {
                    var retried = next
                    retried.failedAttempts += 1
                    try? replace(retried)
                    outcomes.append(.queued(retried, error))
                    return outcomes
                }
                try? remove(next.id)
                record(.failed(next, error), into: &outcomes)
            }
        }
    }

    private func record(_ outcome: Outcome, into outcomes: inout [Outcome]) {
        outcomes.append(outcome)
        if awaited.contains(outcome.item.id) { settled[outcome.item.id] = outcome }
    }

    private func send(_ action: Action) async throws(GatewayError) -> Response {
        switch action {
        case .swipe(let accountID, let action):
            .swipe(try await client.discovery.swipe(accountID: accountID, Discovery.SwipeAction(rawValue: action),
                                                     deadline: attemptDeadline))
        case .groupSessionLike(let sessionID, let optionID):
            .groupSessionLike(try await client.groupSessions.like(optionID: optionID, in: sessionID, deadline: attemptDeadline))
        case .text(let conversationID, let clientMessageID, let text):
            .message(try await client.messaging.send(text: text, in: conversationID, clientMessageID: clientMessageID,
                                                      deadline: attemptDeadline))
        case .photo(let conversationID, let clientMessageID, let mediaID):
            .message(try await client.messaging.send(photo: mediaID, in: conversationID, clientMessageID: clientMessageID,
                                                      deadline: attemptDeadline))
        }
    }

    /// Whether `error` passes, so the action stays queued: the server could not be reached or
    /// answered too slowly (the action may have taken effect; its key makes the resend
    /// harmless), or there is no session until the user signs in again.
    static func passes(_ error: GatewayError) -> Bool {
        switch error.code {
        case .unavailable, .deadlineExceeded, .cancelled: true
        case .unauthenticated: error.isSignedOut
        // The edge's per-address limit, not a refusal of this action (those carry a reason).
        case .resourceExhausted: error.reason == nil
        default: false
        }
    }

    // MARK: The store

    private func loaded() throws(GatewayError) -> [Item] {
        if let items { return items }
        do {
            let stored = try store.load()
            items = stored
            return stored
        } catch {
            throw RPCError(Platform.ErrorReason.tokenStoreFailed, message: "the offline queue could not be read: \(error)")
        }
    }

    private func save(_ updated: [Item]) throws(GatewayError) {
        do {
            try store.save(updated)
        } catch {
            throw RPCError(Platform.ErrorReason.tokenStoreFailed, message: "the offline queue could not be stored: \(error)")
        }
        items = updated
    }

    private func remove(_ id: String) throws(GatewayError) {
        try save(try loaded().filter { $0.id != id })
    }

    private func replace(_ item: Item) throws(GatewayError) {
        try save(try loaded().map { $0.id == item.id ? item : $0 })
    }
}

extension OfflineQueue.Outcome {
    /// The action this outcome is about.
    public var item: OfflineQueue.Item {
        switch self {
        case .sent(let item, _), .queued(let item, _), .failed(let item, _): item
        }
    }

    /// The error that kept the action queued or refused it; nil when sent.
    public var error: GatewayError? {
        switch self {
        case .sent: nil
        case .queued(_, let error): error
        case .failed(_, let error): error
        }
    }
}

/// Where an `OfflineQueue` keeps its actions between launches. Implementations must be safe to
/// call from any thread; the queue reads once and writes every change through.
public protocol OfflineQueueStore: Sendable {
    func load() throws -> [OfflineQueue.Item]
    func save(_ items: [OfflineQueue.Item]) throws
}

/// Keeps the queue for the life of the process only.
public final class InMemoryOfflineQueueStore: OfflineQueueStore {
    private let items = Mutex<[OfflineQueue.Item]>([])

    public init() {}

    public func load() throws -> [OfflineQueue.Item] { items.withLock { $0 } }
    public func save(_ items: [OfflineQueue.Item]) throws { self.items.withLock { $0 = items } }
}

/// Keeps the queue in one JSON file only its owner reads (0600), replaced whole on each change,
/// so a crash leaves the queue before or after the change. A file this store did not write reads
/// as an empty queue.
public final class FileOfflineQueueStore: OfflineQueueStore {
    public let path: String
    private let file: PrivateFile
    static let formatVersion = 1

    public init(path: String) {
        self.path = path
        self.file = PrivateFile(path: path, maximumSize: 16 << 20)
    }

    private struct FileContents: Codable {
        var version: Int
        var items: [OfflineQueue.Item]
    }

    public func load() throws -> [OfflineQueue.Item] {
        guard let data = try file.contents() else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let contents = try? decoder.decode(FileContents.self, from: data),
              contents.version == Self.formatVersion else { return [] }
        return contents.items
    }

    public func save(_ items: [OfflineQueue.Item]) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        try file.replace(with: try encoder.encode(FileContents(version: Self.formatVersion, items: items)))
    }
}
