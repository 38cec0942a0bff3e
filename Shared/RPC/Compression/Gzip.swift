/// gzip (RFC 1952) for gRPC message compression, `grpc-encoding: gzip`.
///
/// Each call uses a fresh zlib stream, so the functions are safe from any thread.
package enum Gzip {
    /// The gzip encoding of `bytes` (default compression level).
    package static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        let stream = try ZStream(mode: .deflate)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 2 + 64)
        try stream.run(input: bytes) { chunk in output.append(contentsOf: chunk) }
        return output
    }

    /// Decompresses a gzip stream (or several concatenated members), refusing to produce more
    /// than `limit` bytes with `GzipError.outputTooLarge`.
    ///
    /// The limit is checked as each inflated chunk arrives, so a zip bomb costs at most `limit`
    /// bytes of output plus one 64 KiB chunk; gRPC maps that error to RESOURCE_EXHAUSTED.
    package static func decompress(_ bytes: [UInt8], limit: Int) throws -> [UInt8] {
        let limit = max(limit, 0)
        let stream = try ZStream(mode: .inflate)
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(bytes.count * 2, 256)))
        try stream.run(input: bytes) { chunk in
            guard chunk.count <= limit - output.count else { throw GzipError.outputTooLarge }
            if output.count + chunk.count > output.capacity {
                // Grow geometrically, but never reserve past the limit.
                output.reserveCapacity(min(limit, max(output.capacity * 2, output.count + chunk.count)))
            }
            output.append(contentsOf: chunk)
        }
        return output
    }
}
