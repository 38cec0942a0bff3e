import ArgumentParser
import Contracts
import Foundation
import GatewayClient

/// `rendezvous photo upload|list`: your profile photos.
struct PhotoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "photo", abstract: "Upload photos and manage your profile's photo set.",
                                                    subcommands: [Upload.self, List.self])

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a JPEG, PNG or HEIC photo (a progress bar on a terminal) and add it to your profile.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The photo file.") var file: String
        @Flag(name: .customLong("no-profile"), help: "Only upload it; do not add it to your profile's photos.") var noProfile = false

        func run() async throws {
            try await options.withClient { client, output in
                let blob = try await PhotoUpload.upload(file, client: client, output: output)
                var object = PhotoUpload.blobJSON(blob)
                var text = "uploaded \(blob.blobID) (\(blob.width)×\(blob.height), \(blob.size) bytes)"
                if !noProfile {
                    let set = try await client.profilePhotos.add(blob.blobID)
                    object["profile_photos"] = set.photos.map(\.blobID)
                    text += "\nyour profile has \(set.photos.count) photo(s) (\(set.minimum)–\(set.maximum))"
                }
                output.emit(object) { text }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a profile's photos (yours by default) with download URLs.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Another member's account id.") var accountID: String = ""

        func run() async throws {
            try await options.withClient { client, output in
                let set = try await client.profilePhotos.photoSet(of: accountID)
                output.emit(["account_id": set.accountID, "minimum": Int(set.minimum), "maximum": Int(set.maximum),
                             "photos": set.photos.map {
                                 ["blob_id": $0.blobID, "width": Int($0.width), "height": Int($0.height), "url": $0.url] as JSONObject
                             }]) {
                    guard !set.photos.isEmpty else { return "no photos" }
                    return Output.table(["PHOTO", "SIZE", "URL"], set.photos.map { [$0.blobID, "\($0.width)×\($0.height)", $0.url] })
                }
            }
        }
    }
}

/// Reads a photo file and uploads it as a PHOTO blob, drawing progress on stderr when it is a terminal.
enum PhotoUpload {
    static func upload(_ path: String, client: GatewayClient, output: Output) async throws -> Media.Blob {
        let bytes = try readFile(path)
        guard let contentType = contentType(of: bytes) else {
            throw CLIError("\(path) is not a JPEG, PNG or HEIC photo")
        }
        let bar = ProgressBar(enabled: !output.json && isatty(2) == 1, label: (path as NSString).lastPathComponent)
        let blob = try await client.media.upload(bytes, kind: .photo, contentType: contentType) { progress in
            bar.update(sent: progress.sentBytes, total: progress.totalBytes)
        }
        bar.finish()
        return blob
    }

    static func readFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read \(path)") }
        return [UInt8](data)
    }

    /// The type the file's first bytes say it is.
    static func contentType(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.count >= 12, bytes[4..<8].elementsEqual(Array("ftyp".utf8)),
           ["heic", "heix", "mif1", "heim", "heis"].contains(String(decoding: bytes[8..<12], as: UTF8.self)) {
            return "image/heic"
        }
        return nil
    }

    static func blobJSON(_ blob: Media.Blob) -> JSONObject {
        ["blob_id": blob.blobID, "content_type": blob.contentType, "size": blob.size, "sha256": blob.sha256,
         "width": Int(blob.width), "height": Int(blob.height), "created_at": isoJSON(blob.createdAt)]
    }
}
