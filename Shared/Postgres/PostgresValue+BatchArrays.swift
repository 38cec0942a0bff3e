package import Foundation

/// Arrays for a batch bound as one array per column (`unnest`, or a function taking arrays):
/// columns unset for some rows (NULL elements), and `bytea[]`.
extension PostgresValue {
    package static func textArray(elements values: [String?]) -> Self {
        array(values.map { $0.map { Array($0.utf8) } }, element: .text, type: .textArray)
    }

    package static func uuidArray(elements values: [UUID?]) -> Self {
        array(values.map { $0.flatMap { uuid($0).bytes } }, element: .uuid, type: .uuidArray)
    }

    package static func byteaArray(_ values: [[UInt8]]) -> Self {
        array(values, element: .bytea, type: .byteaArray)
    }
}
