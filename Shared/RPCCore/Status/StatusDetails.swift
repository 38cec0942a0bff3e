package import Wire

/// google.rpc.ErrorInfo (google/rpc/error_details.proto): reason = 1, domain = 2, metadata = 3.
package struct ErrorInfoMessage: ProtoMessage {
    package var reason = ""
    package var domain = ""
    package var metadata: [String: String] = [:]

    package init() {}

    package func encode(to writer: inout ProtoWriter) {
        if !reason.isEmpty { writer.writeString(field: 1, reason) }
        if !domain.isEmpty { writer.writeString(field: 2, domain) }
        writer.writeMap(field: 3, metadata)
    }

    package mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: reason = try reader.readString()
        case 2: domain = try reader.readString()
        case 3:
            var entry = ProtoReader(bytes: try reader.readBytes())
            var key = ""
            var value = ""
            while let next = try entry.nextField() {
                switch next.field {
                case 1: key = try entry.readString()
                case 2: value = try entry.readString()
                default: try entry.skipField()
                }
            }
            metadata[key] = value
        default: try reader.skipField()
        }
    }
}

/// google.protobuf.Any: type_url = 1, value = 2.
package struct AnyMessage: ProtoMessage {
    package var typeURL = ""
    package var value: [UInt8] = []

    package init() {}

    package func encode(to writer: inout ProtoWriter) {
        if !typeURL.isEmpty { writer.writeString(field: 1, typeURL) }
        if !value.isEmpty { writer.writeBytes(field: 2, value) }
    }

    package mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: typeURL = try reader.readString()
        case 2: value = try reader.readBytes()
        default: try reader.skipField()
        }
    }
}

/// google.rpc.Status: code = 1, message = 2, details = 3 (repeated Any). The payload of
/// `grpc-status-details-bin`.
package struct StatusMessage: ProtoMessage {
    package var code: Int32 = 0
    package var message = ""
    package var details: [AnyMessage] = []

    package init() {}

    package func encode(to writer: inout ProtoWriter) {
        if code != 0 { writer.writeInt32(field: 1, code) }
        if !message.isEmpty { writer.writeString(field: 2, message) }
        for detail in details { writer.writeMessage(field: 3, detail) }
    }

    package mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: code = try reader.readInt32()
        case 2: message = try reader.readString()
        case 3: details.append(try reader.readMessage(AnyMessage.self))
        default: try reader.skipField()
        }
    }
}

extension RPCError {
    package static let errorInfoTypeURL = "type.googleapis.com/google.rpc.ErrorInfo"

    /// The google.rpc.Status bytes for `grpc-status-details-bin`, or nil when there is no reason.
    package func statusDetailsBytes() -> [UInt8]? {
        guard let reason else { return nil }
        var info = ErrorInfoMessage()
        info.reason = reason
        info.domain = domain
        info.metadata = details
        var any = AnyMessage()
        any.typeURL = Self.errorInfoTypeURL
        any.value = info.serializedBytes()
        var status = StatusMessage()
        status.code = Int32(code.rawValue)
        status.message = message
        status.details = [any]
        return status.serializedBytes()
    }

    /// Fills reason, domain and details from received `grpc-status-details-bin` bytes.
    package mutating func applyStatusDetails(_ bytes: [UInt8]) {
        guard let status = try? StatusMessage(serializedBytes: bytes) else { return }
        for detail in status.details where detail.typeURL == Self.errorInfoTypeURL {
            guard let info = try? ErrorInfoMessage(serializedBytes: detail.value) else { continue }
            reason = info.reason
            domain = info.domain
            details = info.metadata
        }
    }
}
