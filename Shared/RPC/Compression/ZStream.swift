internal import CZlib

/// Owns one zlib `z_stream` set up for gzip, freed in `deinit`.
final class ZStream {
    enum Mode {
        case deflate
        case inflate
    }

    /// Bytes produced per zlib call, handed to the caller's sink before the next call.
    private static let chunkSize = 64 * 1024

    private let mode: Mode
    /// Heap-allocated because zlib keeps a back pointer to the z_stream: it must not move.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether the *Init call succeeded, so `deinit` knows to call *End.
    private var initialized = false

    init(mode: Mode) throws {
        self.mode = mode
        self.stream = .allocate(capacity: 1)
        // Zeroed zalloc/zfree/opaque select zlib's default allocator.
        self.stream.initialize(to: z_stream())
        let rc: Int32
        switch mode {
        case .deflate: rc = czlib_deflate_init_gzip(self.stream, Z_DEFAULT_COMPRESSION)
        case .inflate: rc = czlib_inflate_init_gzip(self.stream)
        }
        try self.check(rc)
        self.initialized = true
    }

    deinit {
        if self.initialized {
            switch self.mode {
            case .deflate: deflateEnd(self.stream)
            case .inflate: inflateEnd(self.stream)
            }
        }
        self.stream.deinitialize(count: 1)
        self.stream.deallocate()
    }

    /// Compresses or decompresses all of `input` to the end of the gzip stream, passing each
    /// produced chunk to `sink` (which may throw to stop early). Single use.
    func run(input: [UInt8], sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 1)
        defer { chunk.deallocate() }
        try input.withUnsafeBytes { input in
            // zlib's lengths are 32-bit: feed the input in slices so any size works.
            var fed = 0
            defer {
                // Never leave zlib holding pointers into buffers that are about to go away.
                self.stream.pointee.next_in = nil
                self.stream.pointee.next_out = nil
            }
            while true {
                if self.stream.pointee.avail_in == 0, fed < input.count {
                    let slice = min(input.count - fed, Int(UInt32.max))
                    // Safe: `fed + slice <= input.count`; zlib only reads through next_in even
                    // though the C field is not const.
                    self.stream.pointee.next_in = UnsafeMutablePointer(
                        mutating: input.baseAddress!.assumingMemoryBound(to: UInt8.self) + fed)
                    self.stream.pointee.avail_in = UInt32(slice)
                    fed += slice
                }
                let inputExhausted = fed == input.count && self.stream.pointee.avail_in == 0
                // Safe: `chunk` is a live allocation of chunkSize bytes (< 4 GiB).
                self.stream.pointee.next_out = chunk.baseAddress!.assumingMemoryBound(to: UInt8.self)
                self.stream.pointee.avail_out = UInt32(chunk.count)

                let rc: Int32
                switch self.mode {
                case .deflate: rc = deflate(self.stream, inputExhausted ? Z_FINISH : Z_NO_FLUSH)
                case .inflate: rc = inflate(self.stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(self.stream.pointee.avail_out)
                if produced > 0 {
                    try sink(UnsafeRawBufferPointer(rebasing: chunk[..<produced]))
                }

                switch rc {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    let moreInput = fed < input.count || self.stream.pointee.avail_in > 0
                    guard self.mode == .inflate, moreInput else { return }
                    // RFC 1952 §2.2: a gzip file may hold several members back to back.
                    try self.check(inflateReset(self.stream))
                case Z_BUF_ERROR where inputExhausted && produced == 0:
                    // No progress with fresh output space and no input left: the stream is cut short.
                    throw GzipError.corrupt("unexpected end of gzip stream")
                default:
                    try self.check(rc)
                    throw GzipError(code: .internalError, message: "zlib made no progress (\(rc))")
                }
            }
        }
    }

    /// Turns a zlib return code into a `GzipError` with zlib's own message; success passes.
    private func check(_ rc: Int32) throws {
        switch rc {
        case Z_OK, Z_STREAM_END:
            return
        case Z_DATA_ERROR:
            throw GzipError.corrupt(self.zlibMessage ?? "invalid gzip data")
        case Z_NEED_DICT:
            throw GzipError.corrupt("gzip stream requires a preset dictionary")
        case Z_MEM_ERROR:
            throw GzipError(code: .outOfMemory, message: self.zlibMessage ?? "zlib out of memory")
        default:
            throw GzipError(code: .internalError, message: self.zlibMessage ?? "zlib error \(rc)")
        }
    }

    private var zlibMessage: String? {
        // Safe: zlib's msg is nil or a static NUL-terminated string.
        self.stream.pointee.msg.map { String(cString: $0) }
    }
}
