import Contracts

/// A point on Earth in WGS 84 degrees, stored as PostGIS `geography(Point, 4326)`.
struct GeoLocation: Sendable, Hashable {
    let latitude: Double
    let longitude: Double

    /// INVALID_ARGUMENT `INVALID_LOCATION` unless latitude is within ±90 and longitude within ±180.
    init(_ point: Profiles.GeoPoint) throws(ProfileError) {
        guard point.latitude.isFinite, point.longitude.isFinite,
              (-90...90).contains(point.latitude), (-180...180).contains(point.longitude) else {
            throw .invalidLocation
        }
        self.init(verifiedLatitude: point.latitude, longitude: point.longitude)
    }

    /// A point read back from the database, already valid.
    init(verifiedLatitude latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    var message: Profiles.GeoPoint { Profiles.GeoPoint(latitude: latitude, longitude: longitude) }
}
