/// Momento's join codes: 6 characters from an alphabet without look-alikes (no 0, O, 1 or I),
/// so a code read off a screen or a poster is typed right.
enum JoinCode {
    static let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
    static let length = 6

    static func make() -> String {
        String((0..<length).map { _ in alphabet.randomElement()! })  // the alphabet is not empty
    }

    /// The code as stored (upper case), or nil when it has other characters or another length.
    static func normalized(_ text: String) -> String? {
        let code = text.trimmingSpaces.uppercased()
        guard code.count == length, code.allSatisfy(alphabet.contains) else { return nil }
        return code
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var text = self[...]
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
