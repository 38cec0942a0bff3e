import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.media.v1.MomentoEvents`: events, join codes, members, photos within the
/// per-member limit, and the gallery after the reveal (momento.proto).
struct MomentoEventsService: MomentoEventsProvider {
    let pool: PostgresPool
    let store: EventStore
    let signer: URLSigner
    let settings: MediaSettings
    let events: EventStreamService

    /// PreviewEvent needs no access token.
    static let publicMethods: Set<String> = ["/rendezvous.media.v1.MomentoEvents/PreviewEvent"]

    func createEvent(_ request: Momento.CreateEventRequest, context: ServerCallContext) async throws -> Momento.MomentoEvent {
        let caller = try context.requireAccount()
        let creator = try caller.accountUUID()
        let title = request.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(title.count) else { throw MediaError.invalidTitle }
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        guard let release = request.releaseAt?.validMicroseconds, release > now, release <= now + 366 * 86_400 * 1_000_000 else {
            throw MediaError.invalidReleaseTime
        }
        let limit = request.maxPhotosPerMember == 0 ? 5 : request.maxPhotosPerMember
        guard (1...100).contains(limit) else { throw MediaError.invalidPhotoLimit }
        if let location = request.location {
            guard (-90...90).contains(location.latitude), (-180...180).contains(location.longitude),
                  location.name.count <= 200 else { throw MediaError.invalidLocation }
        }
        guard request.description.count <= 2_000 else { throw MediaError.invalidDescription }
        var normalized = request
        normalized.title = title
        let event = try await pool.withTransaction { connection in
            try await store.create(app: caller.app, creator: creator, request: normalized, maxPhotos: limit, on: connection)
        }
        return event.message(linkBase: settings.joinLinkBase, membership: EventStore.Membership(role: .creator, photoCount: 0))
    }

    func previewEvent(_ request: Momento.PreviewEventRequest, context: ServerCallContext) async throws -> Momento.EventPreview {
        guard let code = JoinCode.normalized(request.joinCode) else { throw MediaError.invalidJoinCode }
        guard let event = try await pool.withConnection({ try await store.preview(code: code, on: $0) }) else {
            throw MediaError.joinCodeNotFound
        }
        var preview = Momento.EventPreview(eventID: event.id.uuidString.lowercased(), title: event.title,
                                           releaseAt: Timestamp(microseconds: event.releaseAt), isPrivate: event.isPrivate,
                                           revealed: event.isRevealed)
        if !event.isPrivate {
            preview.location = event.location
            preview.description = event.description
            preview.memberCount = event.memberCount
            preview.photoCount = event.photoCount
        }
        return preview
    }

    func joinEvent(_ request: Momento.JoinEventRequest, context: ServerCallContext) async throws -> Momento.MomentoEvent {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        guard let code = JoinCode.normalized(request.joinCode) else { throw MediaError.invalidJoinCode }
        var inviter: UUID?
        if !request.invitedBy.isEmpty {
            guard let id = UUID(uuidString: request.invitedBy) else { throw MediaError.invalidInviter }
            inviter = id
        }
        return try await pool.withTransaction { connection in
            guard let event = try await store.join(code: code, app: caller.app, account: account, invitedBy: inviter,
                                                   on: connection) else { throw MediaError.joinCodeNotFound }
            let membership = try await store.membership(of: account, in: event.id, on: connection)
            return event.message(linkBase: settings.joinLinkBase, membership: membership)
        }
    }

    func getEvent(_ request: Momento.GetEventRequest, context: ServerCallContext) async throws -> Momento.MomentoEvent {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let id = try Self.eventID(request.eventID)
        return try await pool.withConnection { connection in
            let (event, membership) = try await memberView(id, account: account, app: caller.app, on: connection)
            return event.message(linkBase: settings.joinLinkBase, membership: membership)
        }
    }

    func addEventPhoto(_ request: Momento.AddEventPhotoRequest, context: ServerCallContext) async throws -> Momento.EventPhoto {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let id = try Self.eventID(request.eventID)
        guard let blobID = UUID(uuidString: request.blobID) else { throw MediaError.invalidBlobID }
        return try await pool.withTransaction { connection in
            guard let event = try await store.event(id, app: caller.app, on: connection),
                  let membership = try await store.membership(of: account, in: id, on: connection, lock: true) else {
                throw MediaError.eventNotFound
            }
            guard let blob = try await BlobStore.blob(blobID, on: connection), blob.ownerID == account, blob.kind == .photo else {
                throw MediaError.notAPhoto
            }
            let status = try await RenditionStore.statuses([blob.sha256], on: connection)[blob.sha256] ?? .pending
            if let existing = try await store.photos(of: id, onlyOf: account, after: nil, limit: Int(event.maxPhotosPerMember) + 1,
                                                     on: connection).first(where: { $0.blob.id == blobID }) {
                return photo(existing, event: id, status: status)
            }
            guard membership.photoCount < event.maxPhotosPerMember else {
                throw MediaError.eventPhotoLimitReached(limit: event.maxPhotosPerMember)
            }
            guard let added = try await store.addPhoto(event: id, account: account, blob: blobID, on: connection) else {
                throw MediaError.notAPhoto
            }
            return photo(EventStore.PhotoRow(id: added.id, accountID: account, blob: blob, addedAt: added.addedAt), event: id,
                         status: status)
        }
    }

    func listEventPhotos(_ request: Momento.ListEventPhotosRequest, context: ServerCallContext) async throws
        -> Momento.ListEventPhotosResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let id = try Self.eventID(request.eventID)
        let pageSize = try PageCursor.pageSize(request.pageSize, defaultSize: 50, maximumSize: 200, invalid: MediaError.invalidPageSize)
        let cursor = try PageCursor.parse(request.pageToken, invalid: MediaError.invalidPageToken)
        let (revealed, rows, statuses) = try await pool.withConnection { connection in
            let (event, _) = try await memberView(id, account: account, app: caller.app, on: connection)
            let rows = try await store.photos(of: id, onlyOf: event.isRevealed ? nil : account, after: cursor, limit: pageSize + 1,
                                              on: connection)
            return (event.isRevealed, rows, try await RenditionStore.statuses(rows.map(\.blob.sha256), on: connection))
        }
        let page = rows.prefix(pageSize)
        var response = Momento.ListEventPhotosResponse(photos: page.map { photo($0, event: id, status: statuses[$0.blob.sha256] ?? .pending) },
                                                       revealed: revealed)
        if rows.count > pageSize, let last = page.last {
            response.nextPageToken = PageCursor(microseconds: last.addedAt, id: last.id).token
        }
        return response
    }

    func deleteEventPhoto(_ request: Momento.DeleteEventPhotoRequest, context: ServerCallContext) async throws
        -> Momento.DeleteEventPhotoResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let id = try Self.eventID(request.eventID)
        guard let photoID = UUID(uuidString: request.photoID) else { throw MediaError.invalidPhotoID }
        try await pool.withTransaction { connection in
            let (_, membership) = try await memberView(id, account: account, app: caller.app, on: connection)
            let moderator = membership.role == .creator || membership.role == .admin
            guard try await store.deletePhoto(photoID, of: id, by: moderator ? nil : account, on: connection) else {
                throw MediaError.photoNotFound
            }
        }
        return Momento.DeleteEventPhotoResponse()
    }

    func setMemberRole(_ request: Momento.SetMemberRoleRequest, context: ServerCallContext) async throws -> Momento.EventMember {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let id = try Self.eventID(request.eventID)
        guard let member = UUID(uuidString: request.accountID) else { throw MediaError.invalidAccountID }
        guard request.role == .admin || request.role == .member else { throw MediaError.invalidRole }
        return try await pool.withTransaction { connection in
            let (_, membership) = try await memberView(id, account: account, app: caller.app, on: connection)
            guard membership.role == .creator else { throw MediaError.notEventAdmin }
            guard let updated = try await store.setRole(request.role, of: member, in: id, on: connection) else {
                throw MediaError.memberNotFound
            }
            return updated
        }
    }

    func getJoinCodeStats(_ request: Momento.GetJoinCodeStatsRequest, context: ServerCallContext) async throws
        -> Momento.JoinCodeStats {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let id = try Self.eventID(request.eventID)
        return try await pool.withConnection { connection in
            let (event, membership) = try await memberView(id, account: account, app: caller.app, on: connection)
            guard membership.role == .creator || membership.role == .admin else { throw MediaError.notEventAdmin }
            return Momento.JoinCodeStats(joinCode: event.joinCode, views: event.codeViews, joins: event.codeJoins)
        }
    }

    func watchEventCounters(_ request: Momento.WatchEventCountersRequest, writer: ResponseWriter<Momento.EventCounters>,
                            context: ServerCallContext) async throws {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let id = try Self.eventID(request.eventID)
        // A subscription: a draining server ends it at once, and the app watches again elsewhere.
        context.endWhenServerDrains()
        // Events from a second before the first read on: none is missed between the two.
        let (first, start) = try await pool.withConnection { connection in
            let start = try await events.outbox.cursor(before: Int64(Date().timeIntervalSince1970 * 1_000_000) - 1_000_000,
                                                       on: connection)
            let (event, _) = try await memberView(id, account: account, app: caller.app, on: connection)
            return (Self.counters(event), start)
        }
        try await writer.write(first)
        var last = first
        var watch = Events.WatchEventsRequest()
        watch.afterCursor = start
        watch.types = ["EventCountersChanged", "EventRevealed"]
        try await events.follow(watch) { change in
            guard change.aggregateID == first.eventID else { return }
            guard let event = try await pool.withConnection({ try await store.event(id, app: caller.app, on: $0) }) else {
                throw MediaError.eventNotFound
            }
            let counters = Self.counters(event)
            if counters != last {
                try await writer.write(counters)
                last = counters
            }
        }
    }

    private static func counters(_ event: EventRecord) -> Momento.EventCounters {
        Momento.EventCounters(eventID: event.id.uuidString.lowercased(), memberCount: event.memberCount, photoCount: event.photoCount,
                              revealedAt: event.revealedAt.map { Timestamp(microseconds: $0) })
    }

    /// The event and the caller's membership; EVENT_NOT_FOUND for anyone but a member.
    private func memberView(_ id: UUID, account: UUID, app: String,
                            on connection: Connection) async throws -> (EventRecord, EventStore.Membership) {
        guard let event = try await store.event(id, app: app, on: connection),
              let membership = try await store.membership(of: account, in: id, on: connection) else {
            throw MediaError.eventNotFound
        }
        return (event, membership)
    }

    private func photo(_ row: EventStore.PhotoRow, event: UUID, status: Media.RenditionStatus) -> Momento.EventPhoto {
        let links = signer.photoLinks(blob: row.blob.id, status: status)
        return Momento.EventPhoto(photoID: row.id.uuidString.lowercased(), eventID: event.uuidString.lowercased(),
                                  blobID: row.blob.id.uuidString.lowercased(), accountID: row.accountID.uuidString.lowercased(),
                                  width: row.blob.width, height: row.blob.height, contentType: row.blob.contentType,
                                  addedAt: Timestamp(microseconds: row.addedAt), url: links.url, thumbnails: links.thumbnails,
                                  renditionStatus: status)
    }

    private static func eventID(_ text: String) throws(MediaError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw .invalidEventID }
        return id
    }
}
