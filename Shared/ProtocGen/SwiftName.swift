/// The naming rules from proto names to Swift names, shared by every emitter.
///
/// Field `account_id` → `accountID`, `photo_ids` → `photoIDs`, `image_url` → `imageURL`;
/// enum value `PUSH_PLATFORM_APNS` of `PushPlatform` → `apns`; RPC `GetSigningKeys` →
/// `getSigningKeys`. Swift keywords are escaped with backticks.
enum SwiftName {
    /// Words written in capitals when they are not the first word of a name.
    static let acronyms: [String: String] = ["id": "ID", "ids": "IDs", "url": "URL", "urls": "URLs", "uri": "URI"]

    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
        "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
        "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self",
        "Self", "super", "throws", "true", "try", "package", "some", "any", "Type", "Protocol",
    ]

    /// `snake_case` (or `camelCase`) to `lowerCamelCase` with the acronym rule.
    static func lowerCamel(_ name: String) -> String {
        let words = words(of: name)
        guard let first = words.first else { return name }
        return first.lowercased() + words.dropFirst().map(capitalized).joined()
    }

    /// `snake_case` or `UPPER_SNAKE` to `UpperCamelCase` with the acronym rule.
    static func upperCamel(_ name: String) -> String {
        words(of: name).map(capitalized).joined()
    }

    /// `PushTokenInactiveReason` → `PUSH_TOKEN_INACTIVE_REASON`.
    static func upperSnake(_ camel: String) -> String {
        var result = ""
        var previous: Character?
        for character in camel {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
                result.append("_")
            }
            result.append(contentsOf: character.uppercased())
            previous = character
        }
        return result
    }

    /// An enum value's case name: the enum's `UPPER_SNAKE_` prefix removed when present.
    static func enumCase(_ valueName: String, enumName: String) -> String {
        let prefix = upperSnake(enumName) + "_"
        var stripped = valueName
        if valueName.hasPrefix(prefix), valueName.count > prefix.count {
            stripped = String(valueName.dropFirst(prefix.count))
        }
        var name = lowerCamel(stripped.lowercased())
        if let first = name.first, first.isNumber { name = "_" + name }
        return name
    }

    /// `name`, in backticks when it is a Swift keyword.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Whether `name` is a plain Swift identifier (letters, digits, underscores; no leading digit).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    private static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in name {
            if character == "_" {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
                words.append(current)
                current = String(character)
            } else {
                current.append(character)
            }
            previous = character == "_" ? nil : character
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private static func capitalized(_ word: String) -> String {
        if let acronym = acronyms[word.lowercased()] { return acronym }
        return word.prefix(1).uppercased() + word.dropFirst()
    }
}
