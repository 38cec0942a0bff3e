/// How far away another member is, as members see it: whole kilometres, at least one, measured
/// from the member's location snapped to a grid of about a kilometre (the services' SQL,
/// `MemberLocation`). Exact metres let anyone who can move their own location (three profile
/// updates, three reads) work out where a member is to within a few metres; rounding alone still
/// let them search for where 1 km turns into 2, and the snapping leaves that to a grid cell.
public enum MemberDistance {
    /// The distance shown for `meters`; 0 (no distance: a location is missing) stays 0.
    public static func shown(_ meters: Double) -> Double {
        guard meters.isFinite, meters > 0 else { return 0 }
        return max(1, (meters / 1000).rounded()) * 1000
    }
}
