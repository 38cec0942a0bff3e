public import Wire

/// Messages of `rendezvous.bench.v1` (proto-docs/rendezvous/bench/v1/bench.proto).
public enum Bench {
    public static let serviceName = "rendezvous.bench.v1.Bench"

    /// rendezvous.bench.v1.GetAccountRequest: aid = 1.
    public struct GetAccountRequest: ProtoMessage {
        public var aid: Int32 = 0

        public init() {}

        public init(aid: Int32) { self.aid = aid }

        public func encode(to writer: inout ProtoWriter) {
            if aid != 0 { writer.writeInt32(field: 1, aid) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            if field == 1 { aid = try reader.readInt32() } else { try reader.skipField() }
        }
    }

    /// rendezvous.bench.v1.Account: aid = 1, abalance = 2.
    public struct Account: ProtoMessage {
        public var aid: Int32 = 0
        public var abalance: Int32 = 0

        public init() {}

        public init(aid: Int32, abalance: Int32) {
            self.aid = aid
            self.abalance = abalance
        }

        public func encode(to writer: inout ProtoWriter) {
            if aid != 0 { writer.writeInt32(field: 1, aid) }
            if abalance != 0 { writer.writeInt32(field: 2, abalance) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: aid = try reader.readInt32()
            case 2: abalance = try reader.readInt32()
            default: try reader.skipField()
            }
        }
    }
}
