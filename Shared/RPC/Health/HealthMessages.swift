package import Wire

/// grpc.health.v1.HealthCheckRequest: service = 1.
package struct HealthCheckRequest: ProtoMessage {
    package var service = ""

    package init() {}

    package init(service: String) { self.service = service }

    package func encode(to writer: inout ProtoWriter) {
        if !service.isEmpty { writer.writeString(field: 1, service) }
    }

    package mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: service = try reader.readString()
        default: try reader.skipField()
        }
    }
}

/// grpc.health.v1.HealthCheckResponse: status = 1 (ServingStatus).
package struct HealthCheckResponse: ProtoMessage {
    /// grpc.health.v1.HealthCheckResponse.ServingStatus; unknown numbers are kept.
    package struct ServingStatus: Hashable, Sendable {
        package var rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        package static let unknown = ServingStatus(rawValue: 0)
        package static let serving = ServingStatus(rawValue: 1)
        package static let notServing = ServingStatus(rawValue: 2)
        package static let serviceUnknown = ServingStatus(rawValue: 3)
    }

    package var status = ServingStatus.unknown

    package init() {}

    package init(status: ServingStatus) { self.status = status }

    package func encode(to writer: inout ProtoWriter) {
        if status.rawValue != 0 { writer.writeEnum(field: 1, status.rawValue) }
    }

    package mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: status = ServingStatus(rawValue: try reader.readEnum())
        default: try reader.skipField()
        }
    }
}
