#if canImport(Glibc)
import Glibc
#endif

/// A failed system call, with the call's name and errno text (or the resolver's text).
package struct SocketError: Error, CustomStringConvertible, Equatable {
    package var call: String
    package var errno: Int32
    /// The resolver's own text when getaddrinfo failed (its codes are not errno values).
    package var resolverMessage: String?
    /// getaddrinfo's code when it failed.
    package var resolverCode: Int32?

    package static func system(_ call: String, _ errno: Int32) -> SocketError {
        SocketError(call: call, errno: errno)
    }

    /// getaddrinfo's failure `code` for `name`, with its text (gai_strerror).
    package static func resolver(_ name: String, _ code: Int32) -> SocketError {
        SocketError(call: "resolve \(name)", errno: code == EAI_SYSTEM ? Glibc.errno : EHOSTUNREACH,
                    resolverMessage: code == EAI_SYSTEM ? nil : String(cString: gai_strerror(code)), resolverCode: code)
    }

    /// The resolver answered that the name has no address (not a timeout or a failure to ask).
    package var nameDoesNotExist: Bool {
        // -5 is glibc's EAI_NODATA (a GNU extension the module does not see): the name has no address.
        resolverCode == EAI_NONAME || resolverCode == -5
    }

    package var description: String {
        "\(call) failed: \(resolverMessage ?? String(cString: strerror(errno)))"
    }
}
