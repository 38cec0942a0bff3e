import Foundation
import Postgres
import RPC

/// Serves signed download URLs by plain HTTP GET and HEAD (over HTTP/2 on the gRPC port and
/// HTTP/1.1 on the admin port): one byte range, ETag (the SHA-256), If-None-Match, and
/// Cache-Control that never outlives the URL (private kinds: no-store).
struct DownloadHandler: PlainHTTPHandler {
    let pool: PostgresPool
    let storage: any BlobStorage
    let signer: URLSigner

    func handles(path: String) -> Bool { path.hasPrefix(URLSigner.pathPrefix) }

    func respond(to request: PlainHTTPRequest) async -> PlainHTTPResponse {
        let now = Int64(Date().timeIntervalSince1970)
        guard let id = signer.verify(path: request.path, expires: request.queryItem("expires"),
                                     signature: request.queryItem("sig"), now: now),
              let expires = request.queryItem("expires").flatMap({ Int64($0) }) else {
            return .text(403, "forbidden")
        }
        do {
            guard let blob = try await pool.withConnection({ try await BlobStore.blob(id, on: $0) }) else {
                return .text(404, "not found")
            }
            let isPrivate = BlobKindPolicy.of(blob.kind)?.isPrivate ?? true
            let etag = "\"\(blob.sha256)\""
            var headers: [(name: String, value: String)] = [
                ("content-type", blob.contentType), ("etag", etag), ("accept-ranges", "bytes"),
                ("cache-control", isPrivate ? "private, no-store" : "private, max-age=\(max(0, expires - now)), immutable"),
            ]
            if let match = request.header("if-none-match"), match.split(separator: ",").contains(where: {
                let tag = $0.trimmingCharacters(in: .whitespaces)
                return tag == etag || tag == "*" || tag == "W/\(etag)"
            }) {
                return PlainHTTPResponse(status: 304, headers: headers.filter { $0.name != "content-type" }, contentLength: 0)
            }
            let head = request.method == "HEAD"
            switch ByteRange.resolve(request.header("range"), length: blob.size) {
            case .unsatisfiable:
                headers = [("content-range", "bytes */\(blob.size)"), ("cache-control", "no-store")]
                return PlainHTTPResponse(status: 416, headers: headers)
            case .partial(let range):
                headers.append(("content-range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(blob.size)"))
                let body = head ? [] : try await storage.read(sha256: blob.sha256, range: range)
                return PlainHTTPResponse(status: 206, headers: headers, body: body, contentLength: Int(range.count))
            case .whole:
                let body = head ? [] : try await storage.read(sha256: blob.sha256, range: nil)
                return PlainHTTPResponse(status: 200, headers: headers, body: body, contentLength: Int(blob.size))
            }
        } catch {
            return .text(503, "unavailable")
        }
    }
}
