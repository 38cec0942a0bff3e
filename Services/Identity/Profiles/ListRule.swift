import Contracts
/// How a list of short texts (tags, interests, cuisines) is cleaned: each item by `item`,
/// empty items refused, duplicates ignoring case dropped (the first kept), at most
/// `maximumCount` values.
struct ListRule: Sendable {
    var item: TextRule
    var maximumCount: Int
    var tooManyReason = Identity.ErrorReason.tooManyValues

    func clean(_ values: [String]) throws(InputError) -> [String] {
        guard values.count <= maximumCount * 4 else { throw tooMany }
        var seen: Set<String> = []
        var cleaned: [String] = []
        for value in values {
            let text = try item.clean(value)
            guard !text.isEmpty else { throw .invalidText(field: item.field) }
            if seen.insert(text.lowercased()).inserted { cleaned.append(text) }
        }
        guard cleaned.count <= maximumCount else { throw tooMany }
        return cleaned
    }

    private var tooMany: InputError { .tooMany(field: item.field, maximum: maximumCount, reason: tooManyReason) }
}
