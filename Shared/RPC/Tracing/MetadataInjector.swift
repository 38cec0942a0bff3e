package import Instrumentation

/// Writes a tracer's propagation fields into gRPC metadata, replacing any earlier value.
package struct MetadataInjector: Injector {
    package init() {}

    package func inject(_ value: String, forKey key: String, into carrier: inout Metadata) {
        carrier.removeAll(forKey: key)
        carrier.addString(value, forKey: key)
    }
}
