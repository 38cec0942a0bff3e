import Contracts
import Foundation
import Postgres

/// One row of `media.events` with the caller's membership, as `EventStore` reads it.
struct EventRecord: Sendable {
    var id: UUID
    var app: String
    var creatorID: UUID
    var title: String
    var joinCode: String
    var releaseAt: Int64
    var isPrivate: Bool
    var maxPhotosPerMember: Int32
    var location: Momento.EventLocation
    var description: String
    var memberCount: Int32
    var photoCount: Int32
    var codeViews: Int64
    var codeJoins: Int64
    var revealedAt: Int64?
    var createdAt: Int64

    /// The columns `init(row:)` reads, in order, from `media.events e`.
    static let columns = """
        e.id, e.app, e.creator_id, e.title, e.join_code, \(UnixMicroseconds.sql("e.release_at")), e.is_private,
        e.max_photos_per_member, e.location_name, e.latitude, e.longitude, e.description, e.member_count, e.photo_count,
        e.code_views, e.code_joins, \(UnixMicroseconds.sql("e.revealed_at")), \(UnixMicroseconds.sql("e.created_at"))
        """

    init(row: PostgresRow) throws {
        id = try row.decode(0)
        app = try row.decode(1)
        creatorID = try row.decode(2)
        title = try row.decode(3)
        joinCode = try row.decode(4)
        releaseAt = try row.decode(5)
        isPrivate = try row.decode(6)
        maxPhotosPerMember = try row.decode(7)
        location = Momento.EventLocation(name: try row.decode(8), latitude: try row.decode(9), longitude: try row.decode(10))
        description = try row.decode(11)
        memberCount = try row.decode(12)
        photoCount = try row.decode(13)
        codeViews = try row.decode(14)
        codeJoins = try row.decode(15)
        revealedAt = try row.decode(16)
        createdAt = try row.decode(17)
    }

    var isRevealed: Bool { revealedAt != nil }

    func message(linkBase: String, membership: EventStore.Membership?) -> Momento.MomentoEvent {
        let id = self.id.uuidString.lowercased()
        var event = Momento.MomentoEvent(
            eventID: id, title: title, creatorID: creatorID.uuidString.lowercased(), joinCode: joinCode,
            joinLink: "\(linkBase)\(joinCode)?eventId=\(id)", releaseAt: Timestamp(microseconds: releaseAt), isPrivate: isPrivate,
            maxPhotosPerMember: maxPhotosPerMember, location: location, description: description, memberCount: memberCount,
            photoCount: photoCount, createdAt: Timestamp(microseconds: createdAt))
        event.revealedAt = revealedAt.map { Timestamp(microseconds: $0) }
        if let membership {
            event.myRole = membership.role
            event.myPhotoCount = membership.photoCount
        }
        return event
    }
}
