package import Foundation

/// One bound parameter as it goes on the wire: its type, format and bytes (nil for NULL).
///
/// Parameters are sent in binary format (exact, no locale or DateStyle dependence), except
/// `numeric`, which goes as text: its base-10000 binary layout buys nothing for minor units.
/// Build values with the typed factories; each takes an Optional and sends a typed NULL.
package struct PostgresValue: Sendable, Hashable {
    package var type: PostgresType
    package var bytes: [UInt8]?
    /// True for text-format parameters (only `numeric`).
    package var isText: Bool

    package init(type: PostgresType, bytes: [UInt8]?, isText: Bool = false) {
        self.type = type
        self.bytes = bytes
        self.isText = isText
    }

    /// An untyped NULL: the server infers its type from the statement.
    package static let null = PostgresValue(type: .unspecified, bytes: nil)

    package static func text(_ value: String?) -> Self {
        Self(type: .text, bytes: value.map { Array($0.utf8) })
    }

    package static func int16(_ value: Int16?) -> Self { integer(value, type: .int2) }
    package static func int32(_ value: Int32?) -> Self { integer(value, type: .int4) }
    package static func int64(_ value: Int64?) -> Self { integer(value, type: .int8) }
    package static func int(_ value: Int?) -> Self { integer(value.map(Int64.init), type: .int8) }

    package static func bool(_ value: Bool?) -> Self {
        Self(type: .bool, bytes: value.map { [$0 ? 1 : 0] })
    }

    package static func double(_ value: Double?) -> Self {
        integer(value?.bitPattern, type: .float8)
    }

    /// A `numeric` from integer minor units: `numeric(minorUnits: 1999, scale: 2)` is 19.99.
    package static func numeric(minorUnits: Int64?, scale: Int = 2) -> Self {
        Self(type: .numeric, bytes: minorUnits.map {
            Array(PostgresNumeric(unscaled: $0, scale: scale).description.utf8)
        }, isText: true)
    }

    package static func uuid(_ value: UUID?) -> Self {
        Self(type: .uuid, bytes: value.map { uuid in withUnsafeBytes(of: uuid.uuid) { Array($0) } })
    }

    /// A `timestamptz` with microsecond precision (Postgres's own), rounded to the nearest.
    package static func timestamptz(_ value: Date?) -> Self {
        integer(value.map(PostgresTimestamp.microseconds(from:)), type: .timestamptz)
    }

    /// A `jsonb` document from its JSON text.
    package static func jsonb(_ json: String?) -> Self { jsonb(bytes: json.map { Array($0.utf8) }) }

    /// A `jsonb` document from its UTF-8 JSON bytes.
    package static func jsonb(bytes json: [UInt8]?) -> Self {
        Self(type: .jsonb, bytes: json.map { [1] + $0 })  // binary jsonb: version byte 1, then text
    }

    package static func bytea(_ value: [UInt8]?) -> Self { Self(type: .bytea, bytes: value) }

    package static func textArray(_ values: [String]?) -> Self {
        array(values?.map { Array($0.utf8) }, element: .text, type: .textArray)
    }

    package static func boolArray(_ values: [Bool]?) -> Self {
        array(values?.map { [$0 ? 1 : 0] }, element: .bool, type: .boolArray)
    }

    package static func int16Array(_ values: [Int16]?) -> Self {
        array(values?.map { integer($0, type: .int2).bytes }, element: .int2, type: .int2Array)
    }

    package static func int32Array(_ values: [Int32]?) -> Self {
        array(values?.map { integer($0, type: .int4).bytes }, element: .int4, type: .int4Array)
    }

    package static func int64Array(_ values: [Int64]?) -> Self {
        array(values?.map { integer($0, type: .int8).bytes }, element: .int8, type: .int8Array)
    }

    package static func uuidArray(_ values: [UUID]?) -> Self {
        array(values?.map { uuid($0).bytes }, element: .uuid, type: .uuidArray)
    }

    private static func integer<T: FixedWidthInteger>(_ value: T?, type: PostgresType) -> Self {
        Self(type: type, bytes: value.map { var bytes: [UInt8] = []; bytes.writeInteger($0); return bytes })
    }

    /// The binary array layout: dimensions, has-null flag, element OID, then
    /// (dimension size, lower bound 1), then each element as a length-prefixed value.
    static func array(_ elements: [[UInt8]?]?, element: PostgresType, type: PostgresType) -> Self {
        guard let elements else { return Self(type: type, bytes: nil) }
        var bytes: [UInt8] = []
        bytes.writeInteger(Int32(elements.isEmpty ? 0 : 1))
        bytes.writeInteger(Int32(elements.contains { $0 == nil } ? 1 : 0))
        bytes.writeInteger(element.oid)
        if !elements.isEmpty {
            bytes.writeInteger(Int32(elements.count))
            bytes.writeInteger(Int32(1))
        }
        for element in elements {
            if let element {
                bytes.writeInteger(Int32(element.count))
                bytes.append(contentsOf: element)
            } else {
                bytes.writeInteger(Int32(-1))
            }
        }
        return Self(type: type, bytes: bytes)
    }
}
