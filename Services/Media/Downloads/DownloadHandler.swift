import Foundation
import Postgres
import RPC

/// Serves signed download URLs by plain HTTP GET and HEAD (over HTTP/2 on the gRPC port and
/// HTTP/1.1 on the admin port): one byte range, ETag, If-None-Match, and Cache-Control that never
/// outlives the URL (private kinds: no-store). A photo is served as its renditions (orientation
/// applied, metadata stripped), never as uploaded; other kinds as uploaded.
struct DownloadHandler: PlainHTTPHandler {
    let pool: PostgresPool
    let storage: any BlobStorage
    let signer: URLSigner
    let renditions: RenditionJob

    /// How long a GET waits for a photo's renditions to be made.
    static let renditionWait: Duration = .seconds(10)

    func handles(path: String) -> Bool { path.hasPrefix(URLSigner.pathPrefix) }

    func respond(to request: PlainHTTPRequest) async -> PlainHTTPResponse {
        let now = Int64(Date().timeIntervalSince1970)
        guard let grant = signer.verify(path: request.path, expires: request.queryItem("expires"),
                                        signature: request.queryItem("sig"), now: now),
              let expires = request.queryItem("expires").flatMap({ Int64($0) }) else {
            return .text(403, "forbidden")
        }
        do {
            guard let blob = try await pool.withConnection({ try await BlobStore.blob(grant.blob, on: $0) }) else {
                return .text(404, "not found")
            }
            guard blob.kind == .photo else {
                guard grant.side == nil else { return .text(404, "not found") }
                let isPrivate = BlobKindPolicy.of(blob.kind)?.isPrivate ?? true
                return try await serve(request, key: blob.sha256, size: blob.size, contentType: blob.contentType,
                                       cacheControl: isPrivate ? "private, no-store" : "private, max-age=\(max(0, expires - now)), immutable")
            }
            var attempt = 0
            while true {
                attempt += 1
                guard let made = try await renditions.renditions(of: blob.sha256, contentType: blob.contentType,
                                                                 within: Self.renditionWait) else {
                    var busy = PlainHTTPResponse.text(503, "the photo is still being prepared")
                    busy.headers.append(("retry-after", "1"))
                    return busy
                }
                guard made.status == .ready, let file = made.files[grant.side ?? 0] else {
                    return .text(422, "the image cannot be decoded")
                }
                do {
                    return try await serve(request, key: file.key, size: file.size, contentType: file.contentType,
                                           cacheControl: "private, max-age=\(max(0, expires - now)), immutable")
                } catch StorageError.missing where attempt == 1 {
                    // The renditions' bytes are gone from storage (restored without them): made again.
                    try await pool.withTransaction { try await RenditionStore.reset(blob.sha256, on: $0) }
                }
            }
        } catch {
            return .text(503, "unavailable")
        }
    }

    /// The stored bytes under `key` (ETag: the key), whole, as one range, or as 304/416.
    private func serve(_ request: PlainHTTPRequest, key: String, size: Int64, contentType: String,
                       cacheControl: String) async throws -> PlainHTTPResponse {
        let etag = "\"\(key)\""
        var headers: [(name: String, value: String)] = [
            ("content-type", contentType), ("etag", etag), ("accept-ranges", "bytes"), ("cache-control", cacheControl),
        ]
        if let match = request.header("if-none-match"), match.split(separator: ",").contains(where: {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == etag || tag == "*" || tag == "W/\(etag)"
        }) {
            return PlainHTTPResponse(status: 304, headers: headers.filter { $0.name != "content-type" }, contentLength: 0)
        }
        let head = request.method == "HEAD"
        switch ByteRange.resolve(request.header("range"), length: size) {
        case .unsatisfiable:
            headers = [("content-range", "bytes */\(size)"), ("cache-control", "no-store")]
            return PlainHTTPResponse(status: 416, headers: headers)
        case .partial(let range):
            headers.append(("content-range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"))
            let body = head ? [] : try await storage.read(sha256: key, range: range)
            return PlainHTTPResponse(status: 206, headers: headers, body: body, contentLength: Int(range.count))
        case .whole:
            let body = head ? [] : try await storage.read(sha256: key, range: nil)
            return PlainHTTPResponse(status: 200, headers: headers, body: body, contentLength: Int(size))
        }
    }
}
