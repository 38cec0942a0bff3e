/// A connection's open streams by id, keeping the last one registered at hand: nghttp2 reports a
/// request's header fields, its frames and its data one callback at a time, each naming the
/// stream that was opened last (a request head of ten fields is a dozen lookups). Loop thread only.
struct HTTP2StreamTable {
    private var byID: [Int32: HTTP2Stream] = [:]
    private var last: HTTP2Stream?
    private var lastID: Int32 = 0

    subscript(id: Int32) -> HTTP2Stream? {
        if let last, lastID == id { return last }
        return byID[id]
    }

    var isEmpty: Bool { byID.isEmpty }

    /// The open streams, in no order.
    var all: [HTTP2Stream] { Array(byID.values) }

    mutating func insert(_ stream: HTTP2Stream) {
        byID[stream.id] = stream
        last = stream
        lastID = stream.id
    }

    mutating func remove(_ id: Int32) -> HTTP2Stream? {
        if lastID == id { last = nil }
        return byID.removeValue(forKey: id)
    }

    /// Empties the table and returns what it held.
    mutating func removeAll() -> [HTTP2Stream] {
        defer {
            byID.removeAll()
            last = nil
        }
        return all
    }
}
