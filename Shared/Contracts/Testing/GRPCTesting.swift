public import Wire

/// Messages of gRPC's interoperability test service, package `grpc.testing`
/// (proto-docs/grpc/testing/messages.proto and empty.proto).
public enum GRPCTesting {
    /// The service's name on the wire.
    public static let serviceName = "grpc.testing.TestService"

    /// grpc.testing.PayloadType: COMPRESSABLE = 0 (other numbers kept as they are).
    public typealias PayloadType = Int32

    /// grpc.testing.Empty: no fields.
    public struct Empty: ProtoMessage {
        public init() {}
        public func encode(to writer: inout ProtoWriter) {}
        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            try reader.skipField()
        }
    }

    /// grpc.testing.BoolValue: value = 1.
    public struct BoolValue: ProtoMessage {
        public var value = false
        public init() {}
        public init(_ value: Bool) { self.value = value }
        public func encode(to writer: inout ProtoWriter) {
            if value { writer.writeBool(field: 1, value) }
        }
        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            if field == 1 { value = try reader.readBool() } else { try reader.skipField() }
        }
    }

    /// grpc.testing.Payload: type = 1, body = 2.
    public struct Payload: ProtoMessage {
        public var type: PayloadType = 0
        public var body: [UInt8] = []
        public init() {}
        public init(body: [UInt8]) { self.body = body }
        public func encode(to writer: inout ProtoWriter) {
            if type != 0 { writer.writeEnum(field: 1, type) }
            if !body.isEmpty { writer.writeBytes(field: 2, body) }
        }
        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: type = try reader.readEnum()
            case 2: body = try reader.readBytes()
            default: try reader.skipField()
            }
        }
    }

    /// grpc.testing.EchoStatus: code = 1, message = 2.
    public struct EchoStatus: ProtoMessage {
        public var code: Int32 = 0
        public var message = ""
        public init() {}
        public init(code: Int32, message: String) {
            self.code = code
            self.message = message
        }
        public func encode(to writer: inout ProtoWriter) {
            if code != 0 { writer.writeInt32(field: 1, code) }
            if !message.isEmpty { writer.writeString(field: 2, message) }
        }
        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: code = try reader.readInt32()
            case 2: message = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// grpc.testing.SimpleRequest: response_type = 1, response_size = 2, payload = 3,
    /// fill_username = 4, fill_oauth_scope = 5, response_compressed = 6, response_status = 7,
    /// expect_compressed = 8, fill_server_id = 9, fill_grpclb_route_type = 10.
    public struct SimpleRequest: ProtoMessage {
        public var responseType: PayloadType = 0
        public var responseSize: Int32 = 0
        public var payload: Payload?
        public var fillUsername = false
        public var fillOauthScope = false
        public var responseCompressed: BoolValue?
        public var responseStatus: EchoStatus?
        public var expectCompressed: BoolValue?
        public var fillServerID = false
        public var fillGrpclbRouteType = false

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if responseType != 0 { writer.writeEnum(field: 1, responseType) }
            if responseSize != 0 { writer.writeInt32(field: 2, responseSize) }
            if let payload { writer.writeMessage(field: 3, payload) }
            if fillUsername { writer.writeBool(field: 4, true) }
            if fillOauthScope { writer.writeBool(field: 5, true) }
            if let responseCompressed { writer.writeMessage(field: 6, responseCompressed) }
            if let responseStatus { writer.writeMessage(field: 7, responseStatus) }
            if let expectCompressed { writer.writeMessage(field: 8, expectCompressed) }
            if fillServerID { writer.writeBool(field: 9, true) }
            if fillGrpclbRouteType { writer.writeBool(field: 10, true) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: responseType = try reader.readEnum()
            case 2: responseSize = try reader.readInt32()
            case 3: payload = try reader.mergeMessage(payload)
            case 4: fillUsername = try reader.readBool()
            case 5: fillOauthScope = try reader.readBool()
            case 6: responseCompressed = try reader.mergeMessage(responseCompressed)
            case 7: responseStatus = try reader.mergeMessage(responseStatus)
            case 8: expectCompressed = try reader.mergeMessage(expectCompressed)
            case 9: fillServerID = try reader.readBool()
            case 10: fillGrpclbRouteType = try reader.readBool()
            default: try reader.skipField()
            }
        }
    }

    /// grpc.testing.SimpleResponse: payload = 1, username = 2, oauth_scope = 3, server_id = 4,
    /// grpclb_route_type = 5, hostname = 6.
    public struct SimpleResponse: ProtoMessage {
        public var payload: Payload?
        public var username = ""
        public var oauthScope = ""
        public var serverID = ""
        public var grpclbRouteType: Int32 = 0
        public var hostname = ""

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if let payload { writer.writeMessage(field: 1, payload) }
            if !username.isEmpty { writer.writeString(field: 2, username) }
            if !oauthScope.isEmpty { writer.writeString(field: 3, oauthScope) }
            if !serverID.isEmpty { writer.writeString(field: 4, serverID) }
            if grpclbRouteType != 0 { writer.writeEnum(field: 5, grpclbRouteType) }
            if !hostname.isEmpty { writer.writeString(field: 6, hostname) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: payload = try reader.mergeMessage(payload)
            case 2: username = try reader.readString()
            case 3: oauthScope = try reader.readString()
            case 4: serverID = try reader.readString()
            case 5: grpclbRouteType = try reader.readEnum()
            case 6: hostname = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// grpc.testing.StreamingInputCallRequest: payload = 1, expect_compressed = 2.
    public struct StreamingInputCallRequest: ProtoMessage {
        public var payload: Payload?
        public var expectCompressed: BoolValue?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if let payload { writer.writeMessage(field: 1, payload) }
            if let expectCompressed { writer.writeMessage(field: 2, expectCompressed) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: payload = try reader.mergeMessage(payload)
            case 2: expectCompressed = try reader.mergeMessage(expectCompressed)
            default: try reader.skipField()
            }
        }
    }

    /// grpc.testing.StreamingInputCallResponse: aggregated_payload_size = 1.
    public struct StreamingInputCallResponse: ProtoMessage {
        public var aggregatedPayloadSize: Int32 = 0

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if aggregatedPayloadSize != 0 { writer.writeInt32(field: 1, aggregatedPayloadSize) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            if field == 1 { aggregatedPayloadSize = try reader.readInt32() } else { try reader.skipField() }
        }
    }

    /// grpc.testing.ResponseParameters: size = 1, interval_us = 2, compressed = 3.
    public struct ResponseParameters: ProtoMessage {
        public var size: Int32 = 0
        public var intervalUs: Int32 = 0
        public var compressed: BoolValue?

        public init() {}

        public init(size: Int32, intervalUs: Int32 = 0) {
            self.size = size
            self.intervalUs = intervalUs
        }

        public func encode(to writer: inout ProtoWriter) {
            if size != 0 { writer.writeInt32(field: 1, size) }
            if intervalUs != 0 { writer.writeInt32(field: 2, intervalUs) }
            if let compressed { writer.writeMessage(field: 3, compressed) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: size = try reader.readInt32()
            case 2: intervalUs = try reader.readInt32()
            case 3: compressed = try reader.mergeMessage(compressed)
            default: try reader.skipField()
            }
        }
    }

    /// grpc.testing.StreamingOutputCallRequest: response_type = 1, response_parameters = 2,
    /// payload = 3, response_status = 7.
    public struct StreamingOutputCallRequest: ProtoMessage {
        public var responseType: PayloadType = 0
        public var responseParameters: [ResponseParameters] = []
        public var payload: Payload?
        public var responseStatus: EchoStatus?

        public init() {}

        public func encode(to writer: inout ProtoWriter) {
            if responseType != 0 { writer.writeEnum(field: 1, responseType) }
            for parameters in responseParameters { writer.writeMessage(field: 2, parameters) }
            if let payload { writer.writeMessage(field: 3, payload) }
            if let responseStatus { writer.writeMessage(field: 7, responseStatus) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: responseType = try reader.readEnum()
            case 2: responseParameters.append(try reader.readMessage(ResponseParameters.self))
            case 3: payload = try reader.mergeMessage(payload)
            case 7: responseStatus = try reader.mergeMessage(responseStatus)
            default: try reader.skipField()
            }
        }
    }

    /// grpc.testing.StreamingOutputCallResponse: payload = 1.
    public struct StreamingOutputCallResponse: ProtoMessage {
        public var payload: Payload?

        public init() {}

        public init(payload: Payload) { self.payload = payload }

        public func encode(to writer: inout ProtoWriter) {
            if let payload { writer.writeMessage(field: 1, payload) }
        }

        public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            if field == 1 { payload = try reader.mergeMessage(payload) } else { try reader.skipField() }
        }
    }
}
