#if canImport(Glibc)
import Glibc
#endif

/// A failed system call, with the call's name and errno text.
package struct SocketError: Error, CustomStringConvertible, Equatable {
    package var call: String
    package var errno: Int32

    package static func system(_ call: String, _ errno: Int32) -> SocketError {
        SocketError(call: call, errno: errno)
    }

    package var description: String {
        "\(call) failed: \(String(cString: strerror(errno)))"
    }
}
