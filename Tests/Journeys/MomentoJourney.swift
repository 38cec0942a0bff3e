import Contracts
import Foundation
import GatewayClient
import RPC
import TestSupport

/// Momento: a creator makes an event; a guest scans its QR link, previews it signed out, signs
/// in and joins; takes photos up to the per-member limit (one more is refused); sees only her own
/// until the release time, when the event is revealed, pushed to both, and the whole gallery
/// opens with its thumbnails through the edge. Crosses identity, media, messaging (push) and APNs.
package struct MomentoJourney {
    let context: JourneyContext

    package init(context: JourneyContext) { self.context = context }

    package func run() async throws {
        let clients = Clients()
        defer { clients.close() }
        let creator = try context.client("momento", in: clients)
        let creatorAccount = try await creator.identity.signInAnonymously()
        let creatorToken = JourneyContext.deviceToken()
        _ = try await creator.devices.registerPushToken(creatorToken, platform: .apns, environment: .production, deviceID: "creator")
        var request = Momento.CreateEventRequest()
        request.title = "Rooftop party"
        request.maxPhotosPerMember = 3
        request.releaseAt = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + context.revealDelay) * 1_000_000))
        let event = try await creator.momento.create(request)
        let creatorPhoto = try await creator.media.upload(RealPNG.make(width: 640, height: 480, seed: Int.random(in: 0..<Int.max)),
                                                          kind: .photo, contentType: "image/png")
        _ = try await creator.momento.addPhoto(blobID: creatorPhoto.blobID, to: event.eventID)

        // The QR code is momento://join/CODE?eventId=ID; the app previews it before any sign-in.
        guard let link = URLComponents(string: event.joinLink), link.scheme == "momento", link.host == "join",
              link.queryItems?.first(where: { $0.name == "eventId" })?.value == event.eventID else {
            throw JourneyFailure("the QR link names the join code and the event: \(event.joinLink)")
        }
        let code = String(link.path.dropFirst())
        let guest = try context.client("momento", in: clients)
        try check(try await guest.momento.preview(joinCode: code).title == "Rooftop party", "the signed-out preview shows the title")
        _ = try await guest.identity.signInAnonymously()
        let guestToken = JourneyContext.deviceToken()
        _ = try await guest.devices.registerPushToken(guestToken, platform: .apns, environment: .production, deviceID: "guest")
        try check(try await guest.momento.join(joinCode: code, invitedBy: creatorAccount.id).memberCount == 2, "two members after the join")

        // Photos up to the limit of three; the fourth is refused with its reason.
        var mine: [String] = []
        for index in 0..<4 {
            let blob = try await guest.media.upload(RealPNG.make(width: 200 + index, height: 150, seed: Int.random(in: 0..<Int.max)),
                                                    kind: .photo, contentType: "image/png")
            if index < 3 {
                mine.append(try await guest.momento.addPhoto(blobID: blob.blobID, to: event.eventID).photoID)
            } else {
                try await refused(.resourceExhausted, "EVENT_PHOTO_LIMIT_REACHED", "a photo past the per-member limit") {
                    _ = try await guest.momento.addPhoto(blobID: blob.blobID, to: event.eventID)
                }
            }
        }
        let before = try await guest.momento.photos(of: event.eventID)
        try check(!before.revealed && Set(before.photos.map(\.photoID)) == Set(mine),
                  "before the release time she sees only her own photos")
        try check(try await guest.momento.event(event.eventID).photoCount == 4, "the event counts all four photos")

        // The release time reveals the event: both are pushed, the whole gallery opens.
        let gallery = try await context.eventually("the reveal", { try await guest.momento.photos(of: event.eventID) }) {
            $0.revealed
        }
        try check(gallery.photos.count == 4, "the revealed gallery holds every member's photos: \(gallery.photos.count)")
        for token in [creatorToken, guestToken] {
            let push = try await context.push(to: token, category: "photos_revealed")
            try check(push.alertBody?.contains("Rooftop party") == true, "the reveal push names the event")
        }
        guard let theirs = gallery.photos.first(where: { $0.blobID == creatorPhoto.blobID }), theirs.thumbnails.count == 2 else {
            let theirs = gallery.photos.first(where: { $0.blobID == creatorPhoto.blobID })
            throw JourneyFailure("the creator's photo is in her gallery with two thumbnails: "
                                 + (theirs.map { "\($0.thumbnails.count) thumbnails, rendition \($0.renditionStatus)" }
                                    ?? "not among \(gallery.photos.map(\.blobID))"))
        }
        let thumbnail = try await guest.media.download(theirs.thumbnails[0].url)
        try check(thumbnail.starts(with: [0xFF, 0xD8, 0xFF]), "a thumbnail downloads through the edge as a JPEG")
        let full = try await guest.media.download(theirs.url)
        try check(RealPNG.dimensions(full).map { [$0.width, $0.height] } == [640, 480], "the full photo downloads at its size")
        try check(try await creator.momento.joinCodeStats(event.eventID).joins == 1, "the creator sees one join by the code")
    }
}
