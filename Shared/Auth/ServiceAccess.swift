/// Which authenticated services may call one internal method.
package enum ServiceAccess: Sendable, Hashable {
    /// Any caller the server accepts (e.g. `WatchEvents`: every consumer).
    case anyService
    /// Only these callers; another accepted caller gets PERMISSION_DENIED `SERVICE_NOT_ALLOWED`.
    case only(Set<String>)

    /// Whether the service named `name` may call.
    package func allows(_ name: String) -> Bool {
        switch self {
        case .anyService: true
        case .only(let names): names.contains(name)
        }
    }
}
