import ArgumentParser
import Contracts
import Foundation
import GatewayClient

/// `rendezvous momento …`: shared event cameras. Runs in the momento app unless --app says otherwise.
struct MomentoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "momento", abstract: "Momento events: create one (its join code as a QR code), join, upload, see the gallery.",
        subcommands: [Create.self, Show.self, Preview.self, Join.self, Upload.self, Gallery.self, QR.self])
    static let app = "momento"

    /// How the QR code is drawn.
    struct QROptions: ParsableArguments {
        @Flag(name: .customLong("no-qr"), help: "Do not draw the QR code.") var noQR = false
        @Option(name: .customLong("qr-level"), help: "QR error correction: L, M, Q or H.") var level: QRLevel = .M
        @Flag(name: .customLong("light-terminal"), help: "Draw the QR code for a terminal with a light background.")
        var lightTerminal = false

        func render(_ text: String) throws -> String {
            try QRCode.encode(Array(text.utf8), correction: level.correction).terminalRendering(darkOnLight: lightTerminal)
        }
    }

    enum QRLevel: String, ExpressibleByArgument, CaseIterable {
        case L, M, Q, H
        var correction: QRCode.Correction { QRCode.Correction(rawValue: rawValue) ?? .medium }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an event and print its join code and QR code.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "The event's title.") var title: String
        @Option(name: .customLong("release-at"), help: "When the photos are revealed (ISO 8601, e.g. 2026-12-31T23:00:00Z).")
        var releaseAt: String?
        @Option(name: .customLong("release-in"), help: "Or: how long from now (e.g. 90m, 2h, 1d).") var releaseIn: String?
        @Flag(name: .customLong("private"), help: "Previews show only the title and release time.") var isPrivate = false
        @Option(name: .customLong("max-photos"), help: "Photos each member may add (1-100; default 5).") var maxPhotos: Int32 = 0
        @Option var description = ""
        @Option(help: "Where it takes place.") var location: String?
        @OptionGroup var qr: QROptions

        func run() async throws {
            let release = try Self.releaseTime(at: releaseAt, in: releaseIn)
            var request = Momento.CreateEventRequest(title: title, releaseAt: Timestamp(seconds: Int64(release.timeIntervalSince1970)),
                                                     isPrivate: isPrivate, maxPhotosPerMember: maxPhotos, description: description)
            if let location { request.location = Momento.EventLocation(name: location) }
            try await options.withClient(app: MomentoCommand.app) { client, output in
                let event = try await client.momento.create(request)
                var object = MomentoJSON.event(event)
                let drawing = qr.noQR ? nil : try qr.render(event.joinLink)
                if let drawing { object["qr"] = drawing }
                output.emit(object) {
                    MomentoJSON.text(event) + (drawing.map { "\n\nscan to join (\(event.joinLink)):\n\($0)" } ?? "")
                }
            }
        }

        static func releaseTime(at: String?, in duration: String?) throws -> Date {
            switch (at, duration) {
            case (let at?, nil):
                guard let date = try? Date(at, strategy: .iso8601) else { throw ValidationError("--release-at must be ISO 8601, e.g. 2026-12-31T23:00:00Z") }
                return date
            case (nil, let duration?):
                let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
                guard let unit = duration.last.flatMap({ units[$0] }), let amount = Double(duration.dropLast()), amount > 0 else {
                    throw ValidationError("--release-in is a number and a unit: 90s, 30m, 2h or 1d")
                }
                return Date().addingTimeInterval(amount * unit)
            default:
                throw ValidationError("give one of --release-at or --release-in")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an event you are a member of, with its QR code.")
        @OptionGroup var options: GlobalOptions
        @Argument var eventID: String
        @OptionGroup var qr: QROptions

        func run() async throws {
            try await options.withClient(app: MomentoCommand.app) { client, output in
                let event = try await client.momento.event(eventID)
                var object = MomentoJSON.event(event)
                let drawing = qr.noQR || event.joinLink.isEmpty ? nil : try qr.render(event.joinLink)
                if let drawing { object["qr"] = drawing }
                output.emit(object) { MomentoJSON.text(event) + (drawing.map { "\n\n\($0)" } ?? "") }
            }
        }
    }

    struct Preview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What a join code opens (no sign-in needed).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The join code.") var code: String

        func run() async throws {
            try await options.withClient(app: MomentoCommand.app) { client, output in
                let preview = try await client.momento.preview(joinCode: code)
                output.emit(["event_id": preview.eventID, "title": preview.title, "release_at": isoJSON(preview.releaseAt),
                             "is_private": preview.isPrivate, "member_count": Int(preview.memberCount),
                             "photo_count": Int(preview.photoCount), "revealed": preview.revealed] as JSONObject) {
                    Output.fields([("event", preview.eventID), ("title", preview.title), ("reveal", iso(preview.releaseAt)),
                                   ("members", String(preview.memberCount)), ("photos", String(preview.photoCount))])
                }
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Join an event by its join code (or the momento://join/… link).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The join code or link.") var code: String
        @Option(name: .customLong("invited-by"), help: "The member who shared the code (account id).") var invitedBy = ""

        func run() async throws {
            let joinCode = Self.code(from: code)
            try await options.withClient(app: MomentoCommand.app) { client, output in
                let event = try await client.momento.join(joinCode: joinCode, invitedBy: invitedBy)
                output.emit(MomentoJSON.event(event)) { "joined\n" + MomentoJSON.text(event) }
            }
        }

        /// The code of a `momento://join/CODE?eventId=…` link, or the argument itself.
        static func code(from text: String) -> String {
            guard text.hasPrefix("momento://join/") else { return text }
            let rest = text.dropFirst("momento://join/".count)
            return String(rest.prefix { $0 != "?" && $0 != "/" })
        }
    }

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Upload photos to an event (within your per-member limit).")
        @OptionGroup var options: GlobalOptions
        @Argument var eventID: String
        @Argument(help: "JPEG, PNG or HEIC files.") var files: [String]

        func run() async throws {
            guard !files.isEmpty else { throw ValidationError("give at least one photo file") }
            try await options.withClient(app: MomentoCommand.app) { client, output in
                var added: [JSONObject] = []
                var lines: [String] = []
                for file in files {
                    let blob = try await PhotoUpload.upload(file, client: client, output: output)
                    let photo = try await client.momento.addPhoto(blobID: blob.blobID, to: eventID)
                    added.append(MomentoJSON.photo(photo))
                    lines.append("added \(file) as photo \(photo.photoID)")
                }
                output.emit(["photos": added]) { lines.joined(separator: "\n") }
            }
        }
    }

    struct Gallery: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an event's photos: yours before the reveal, everyone's after it (with download URLs).")
        @OptionGroup var options: GlobalOptions
        @Argument var eventID: String
        @Option(name: .customLong("page-token")) var pageToken = ""

        func run() async throws {
            try await options.withClient(app: MomentoCommand.app) { client, output in
                let page = try await client.momento.photos(of: eventID, pageToken: pageToken)
                output.emit(["revealed": page.revealed, "photos": page.photos.map(MomentoJSON.photo),
                             "next_page_token": page.nextPageToken] as JSONObject) {
                    let header = page.revealed ? "revealed: every member's photos" : "not revealed yet: your photos only"
                    guard !page.photos.isEmpty else { return header + "\n(no photos)" }
                    return header + "\n" + Output.table(["PHOTO", "BY", "SIZE", "ADDED", "URL"], page.photos.map {
                        [$0.photoID, $0.accountID, "\($0.width)×\($0.height)", iso($0.addedAt), $0.url]
                    })
                }
            }
        }
    }

    struct QR: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "qr", abstract: "Draw any text (a join link) as a QR code.")
        @OptionGroup var options: GlobalOptions
        @Argument var text: String
        @OptionGroup var qr: QROptions

        func run() async throws {
            let code = try QRCode.encode(Array(text.utf8), correction: qr.level.correction)
            let drawing = code.terminalRendering(darkOnLight: qr.lightTerminal)
            options.output.emit(["text": text, "version": code.version, "level": code.correction.rawValue, "mask": code.mask,
                                 "qr": drawing] as JSONObject) { drawing }
        }
    }
}

enum MomentoJSON {
    static func event(_ event: Momento.MomentoEvent) -> JSONObject {
        [
            "event_id": event.eventID, "title": event.title, "creator_id": event.creatorID, "join_code": event.joinCode,
            "join_link": event.joinLink, "release_at": isoJSON(event.releaseAt), "is_private": event.isPrivate,
            "max_photos_per_member": Int(event.maxPhotosPerMember), "description": event.description,
            "location": event.location?.name ?? "", "member_count": Int(event.memberCount), "photo_count": Int(event.photoCount),
            "revealed_at": isoJSON(event.revealedAt), "my_photo_count": Int(event.myPhotoCount),
        ]
    }

    static func text(_ event: Momento.MomentoEvent) -> String {
        Output.fields([
            ("event", event.eventID), ("title", event.title), ("join code", event.joinCode), ("link", event.joinLink),
            ("reveal", event.revealedAt.map { "revealed \($0.iso8601)" } ?? iso(event.releaseAt)),
            ("members", String(event.memberCount)), ("photos", "\(event.photoCount) (yours \(event.myPhotoCount) of \(event.maxPhotosPerMember))"),
        ])
    }

    static func photo(_ photo: Momento.EventPhoto) -> JSONObject {
        ["photo_id": photo.photoID, "event_id": photo.eventID, "blob_id": photo.blobID, "account_id": photo.accountID,
         "width": Int(photo.width), "height": Int(photo.height), "content_type": photo.contentType,
         "added_at": isoJSON(photo.addedAt), "url": photo.url, "thumbnails": photo.thumbnails.map(\.url)]
    }
}
