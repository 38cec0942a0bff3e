internal import COpenSSL

/// Application-Layer Protocol Negotiation (RFC 7301) helpers for `TLSContext`.
enum ALPN {
    /// Encodes protocol names as the ALPN wire format: each name prefixed by its one-byte length.
    static func wireFormat(_ protocols: [String]) throws -> [UInt8] {
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw TLSError(code: .configuration, operation: "ALPN", message: "protocol name must be 1–255 bytes")
            }
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        // RFC 7301 §3.1: the whole ProtocolNameList fits in a 16-bit length.
        guard wire.count <= 65_535 else {
            throw TLSError(code: .configuration, operation: "ALPN", message: "protocol list too long")
        }
        return wire
    }

    /// The server's ALPN select callback body: picks our most preferred protocol that the client
    /// offers, or refuses the handshake with a fatal `no_application_protocol` alert.
    ///
    /// Called by OpenSSL during the handshake; never throws. `owner` is the unretained
    /// `TLSContext` that installed the callback.
    static func select(
        out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
        outLength: UnsafeMutablePointer<UInt8>?,
        offered: UnsafePointer<UInt8>?,
        offeredLength: UInt32,
        owner: UnsafeMutableRawPointer?
    ) -> Int32 {
        guard let out, let outLength, let offered, let owner else { return SSL_TLSEXT_ERR_ALERT_FATAL }
        // Safe: `owner` was set from a TLSContext that outlives its connections (see finishServerSetup).
        let context = Unmanaged<TLSContext>.fromOpaque(owner).takeUnretainedValue()
        // Safe: OpenSSL passes the client's list as `offeredLength` readable bytes.
        let offeredList = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
        let clientNames = names(in: offeredList)
        let ours = context.alpnWireFormat
        for preferred in names(in: ours) {
            let name = ours[preferred]
            guard let match = clientNames.first(where: { offeredList[$0].elementsEqual(name) }) else {
                continue
            }
            // Safe: `match` lies inside `offeredList`, which stays valid until OpenSSL copies
            // the selection right after this callback returns.
            out.pointee = offered + match.lowerBound
            outLength.pointee = UInt8(match.count)
            return SSL_TLSEXT_ERR_OK
        }
        return SSL_TLSEXT_ERR_ALERT_FATAL
    }

    /// The slices naming each protocol in an ALPN wire-format list; stops at a malformed entry.
    private static func names<Bytes: Collection<UInt8>>(in wire: Bytes) -> [Range<Bytes.Index>] {
        var ranges: [Range<Bytes.Index>] = []
        var index = wire.startIndex
        while index < wire.endIndex {
            let length = Int(wire[index])
            let start = wire.index(after: index)
            guard length > 0, wire.distance(from: start, to: wire.endIndex) >= length else { break }
            let end = wire.index(start, offsetBy: length)
            ranges.append(start..<end)
            index = end
        }
        return ranges
    }
}
