public import Wire

/// Messages of `rendezvous.events.v1` (proto-docs/rendezvous/events/v1/events.proto).
public enum Events {
    /// The service every event producer serves.
    public static let serviceName = "rendezvous.events.v1.EventStream"

    /// rendezvous.events.v1.WatchEventsRequest: after_cursor = 1, types = 2.
    public struct WatchEventsRequest: ProtoMessage {
        public var afterCursor: Int64 = 0
        public var types: [String] = []

        public init() {}

        public init(afterCursor: Int64, types: [String] = []) {
            self.afterCursor = afterCursor
            self.types = types
        }

        public func encode(to writer: inout ProtoWriter) {
            if afterCursor != 0 { writer.writeInt64(field: 1, afterCursor) }
            for type in types { writer.writeString(field: 2, type) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: afterCursor = try reader.readInt64()
            case 2: types.append(try reader.readString())
            default: try reader.skipField()
            }
        }
    }

    /// rendezvous.events.v1.Event: cursor = 1, id = 2, type = 3, app = 4, aggregate_id = 5,
    /// payload = 6, occurred_at = 7.
    public struct Event: ProtoMessage {
        public var cursor: Int64 = 0
        public var id = ""
        public var type = ""
        public var app = ""
        public var aggregateID = ""
        public var payload: [UInt8] = []
        public var occurredAt: Timestamp?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if cursor != 0 { writer.writeInt64(field: 1, cursor) }
            if !id.isEmpty { writer.writeString(field: 2, id) }
            if !type.isEmpty { writer.writeString(field: 3, type) }
            if !app.isEmpty { writer.writeString(field: 4, app) }
            if !aggregateID.isEmpty { writer.writeString(field: 5, aggregateID) }
            if !payload.isEmpty { writer.writeBytes(field: 6, payload) }
            if let occurredAt { writer.writeMessage(field: 7, occurredAt) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: cursor = try reader.readInt64()
            case 2: id = try reader.readString()
            case 3: type = try reader.readString()
            case 4: app = try reader.readString()
            case 5: aggregateID = try reader.readString()
            case 6: payload = try reader.readBytes()
            case 7: occurredAt = try reader.mergeMessage(occurredAt)
            default: try reader.skipField()
            }
        }
    }
}
