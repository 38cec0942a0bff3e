/// A Postgres type by OID: the built-in ones this module encodes and decodes.
///
/// OIDs are fixed for built-in types (`pg_type.dat`); extension types (PostGIS geography) have
/// per-database OIDs, so they cross the wire as bytea (WKB) or through SQL constructors.
package struct PostgresType: Hashable, Sendable, CustomStringConvertible {
    package var oid: UInt32

    package init(oid: UInt32) { self.oid = oid }

    /// Lets the server infer the type (used for untyped NULLs).
    package static let unspecified = PostgresType(oid: 0)
    package static let bool = PostgresType(oid: 16)
    package static let bytea = PostgresType(oid: 17)
    package static let char = PostgresType(oid: 18)
    package static let name = PostgresType(oid: 19)
    package static let int8 = PostgresType(oid: 20)
    package static let int2 = PostgresType(oid: 21)
    package static let int4 = PostgresType(oid: 23)
    package static let text = PostgresType(oid: 25)
    package static let json = PostgresType(oid: 114)
    package static let float4 = PostgresType(oid: 700)
    package static let float8 = PostgresType(oid: 701)
    package static let unknown = PostgresType(oid: 705)
    package static let bpchar = PostgresType(oid: 1042)
    package static let varchar = PostgresType(oid: 1043)
    package static let timestamp = PostgresType(oid: 1114)
    package static let timestamptz = PostgresType(oid: 1184)
    package static let numeric = PostgresType(oid: 1700)
    package static let uuid = PostgresType(oid: 2950)
    package static let jsonb = PostgresType(oid: 3802)

    package static let boolArray = PostgresType(oid: 1000)
    package static let byteaArray = PostgresType(oid: 1001)
    package static let int2Array = PostgresType(oid: 1005)
    package static let int4Array = PostgresType(oid: 1007)
    package static let textArray = PostgresType(oid: 1009)
    package static let varcharArray = PostgresType(oid: 1015)
    package static let int8Array = PostgresType(oid: 1016)
    package static let float8Array = PostgresType(oid: 1022)
    package static let timestamptzArray = PostgresType(oid: 1185)
    package static let uuidArray = PostgresType(oid: 2951)

    package var description: String { "oid \(oid)" }
}
