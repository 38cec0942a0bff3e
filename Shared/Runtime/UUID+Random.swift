package import Foundation
import CryptoCore

extension UUID {
    /// A new random UUID (version 4, RFC 9562 §5.4) from OpenSSL's CSPRNG. Foundation's
    /// `UUID()` on Linux opens, reads and closes /dev/urandom for every id: three system
    /// calls, the open a path lookup, several per write on the busiest RPCs.
    package static func random() -> UUID {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // the RFC's variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
