/// Where a member is, as distances to other members are measured from it: their location snapped
/// to a grid of 0.01° (1.1 km north to south, less east to west away from the equator). Distances
/// are shown in whole kilometres (`MemberDistance`), but a reader who moves their own location can
/// search for where a shown distance flips (1.5 km: 1 km becomes 2) and, from three such points,
/// place whatever the distance was measured from; from the snapped point that is a grid cell, not
/// the member. Feeds' radius filters and distance ranking use it too: an exact boundary would
/// answer the same search.
package enum MemberLocation {
    /// SQL for the snapped `column` (a geography point), NULL when it is NULL.
    package static func sql(_ column: String) -> String {
        "public.ST_SnapToGrid(\(column)::public.geometry, 0.01)::public.geography"
    }
}
