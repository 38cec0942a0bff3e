import Contracts

/// A feed request's deal-breakers, checked.
struct FeedFilters: Sendable, Equatable {
    var minAge: Int32?
    var maxAge: Int32?
    var radiusMeters: Double
    var genders: [Int32]?
    var cuisines: [String]?

    static let defaultRadiusKm: Int32 = 50

    /// Whether any filter beyond the default radius is set (what tiers without advanced
    /// filters may not use in apps that gate them).
    var isAdvanced: Bool {
        minAge != nil || maxAge != nil || radiusMeters != Double(Self.defaultRadiusKm) * 1000 || genders != nil || cuisines != nil
    }

    init(_ filters: Discovery.FeedFilters?) throws(DiscoveryError) {
        let filters = filters ?? Discovery.FeedFilters()
        if filters.minAge != 0 {
            guard (18...120).contains(filters.minAge) else { throw .invalidFilter("min_age must be 18-120") }
            minAge = filters.minAge
        }
        if filters.maxAge != 0 {
            guard (18...120).contains(filters.maxAge) else { throw .invalidFilter("max_age must be 18-120") }
            maxAge = filters.maxAge
        }
        if let minAge, let maxAge, minAge > maxAge { throw .invalidFilter("min_age is above max_age") }
        let radius = filters.maxDistanceKm == 0 ? Self.defaultRadiusKm : filters.maxDistanceKm
        guard (1...500).contains(radius) else { throw .invalidFilter("max_distance_km must be 1-500") }
        radiusMeters = Double(radius) * 1000
        if !filters.genders.isEmpty {
            guard filters.genders.allSatisfy({ (1...3).contains($0.rawValue) }) else {
                throw .invalidFilter("genders must be FEMALE, MALE or NON_BINARY")
            }
            genders = filters.genders.map(\.rawValue)
        }
        if !filters.cuisines.isEmpty {
            guard filters.cuisines.count <= 20, filters.cuisines.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 50 }) else {
                throw .invalidFilter("cuisines: at most 20 names of 1-50 characters")
            }
            cuisines = filters.cuisines
        }
    }
}
