import Postgres

/// FirstDate's 25 curated Miami restaurants (the seed's fd_restaurants), seeded for the app
/// `firstdate`; producers add or retire others in the table itself.
enum RestaurantCatalog {
    struct Entry {
        let id: String
        let name: String
        let cuisine: String
        let vibe: String
        let neighborhood: String
        let latitude: Double
        let longitude: Double
        let filmingNotes: String
    }

    static let miami: [Entry] = [
        Entry(id: "joes-stone-crab", name: "Joe's Stone Crab", cuisine: "seafood", vibe: "old-school classic", neighborhood: "South Beach",
              latitude: 25.7686, longitude: -80.1353, filmingNotes: "No filming in the main room during dinner; the bar side before 5pm."),
        Entry(id: "versailles", name: "Versailles", cuisine: "cuban", vibe: "loud and loving", neighborhood: "Little Havana",
              latitude: 25.7654, longitude: -80.2530, filmingNotes: "The ventanita is the shot; ask for Carlos."),
        Entry(id: "zuma", name: "Zuma", cuisine: "japanese", vibe: "sleek waterfront", neighborhood: "Downtown",
              latitude: 25.7706, longitude: -80.1894, filmingNotes: "Terrace only; PR approval 10 days ahead."),
        Entry(id: "mandolin", name: "Mandolin Aegean Bistro", cuisine: "greek", vibe: "garden courtyard", neighborhood: "Design District",
              latitude: 25.8136, longitude: -80.1896, filmingNotes: "Courtyard light is best at 6pm; bring reflectors."),
        Entry(id: "kyu", name: "KYU", cuisine: "asian", vibe: "wood-fired and smoky", neighborhood: "Wynwood",
              latitude: 25.8007, longitude: -80.1990, filmingNotes: "Smoke from the grill fogs lenses; shoot from the patio."),
        Entry(id: "ariete", name: "Ariete", cuisine: "american", vibe: "intimate", neighborhood: "Coconut Grove",
              latitude: 25.7279, longitude: -80.2416, filmingNotes: "Twelve tables; book the whole room on Mondays."),
        Entry(id: "cote", name: "Cote Miami", cuisine: "korean", vibe: "steakhouse buzz", neighborhood: "Design District",
              latitude: 25.8127, longitude: -80.1925, filmingNotes: "Grills at every table: mic the couple, not the room."),
        Entry(id: "los-fuegos", name: "Los Fuegos", cuisine: "argentinian", vibe: "open fire by the sea", neighborhood: "Mid-Beach",
              latitude: 25.8170, longitude: -80.1223, filmingNotes: "Hotel property: location release from Faena security."),
        Entry(id: "pubbelly-sushi", name: "Pubbelly Sushi", cuisine: "japanese", vibe: "playful", neighborhood: "Sunset Harbour",
              latitude: 25.7942, longitude: -80.1437, filmingNotes: "Counter seats frame well; no tripods inside."),
        Entry(id: "komodo", name: "Komodo", cuisine: "asian", vibe: "party", neighborhood: "Brickell",
              latitude: 25.7668, longitude: -80.1932, filmingNotes: "Bird's nest tables upstairs; music must be cut for audio."),
        Entry(id: "la-mar", name: "La Mar", cuisine: "peruvian", vibe: "waterfront", neighborhood: "Brickell Key",
              latitude: 25.7676, longitude: -80.1857, filmingNotes: "Sunset over the bay from table 40."),
        Entry(id: "casa-tua", name: "Casa Tua", cuisine: "italian", vibe: "secret garden", neighborhood: "South Beach",
              latitude: 25.7900, longitude: -80.1310, filmingNotes: "Members' lounge is off limits; garden is ours until 7pm."),
        Entry(id: "hiden", name: "Hiden", cuisine: "japanese", vibe: "hidden omakase", neighborhood: "Wynwood",
              latitude: 25.8015, longitude: -80.1995, filmingNotes: "Eight seats behind a taco shop door: the reveal is the hook."),
        Entry(id: "michaels-genuine", name: "Michael's Genuine", cuisine: "american", vibe: "neighborhood favourite", neighborhood: "Design District",
              latitude: 25.8125, longitude: -80.1930, filmingNotes: "Patio before noon on weekdays."),
        Entry(id: "phuc-yea", name: "Phuc Yea", cuisine: "vietnamese", vibe: "cheeky", neighborhood: "MiMo",
              latitude: 25.8378, longitude: -80.1840, filmingNotes: "Neon sign outside is the establishing shot."),
        Entry(id: "boia-de", name: "Boia De", cuisine: "italian", vibe: "tiny and buzzing", neighborhood: "Little River",
              latitude: 25.8310, longitude: -80.1925, filmingNotes: "Strip-mall exterior; shoot inside only, 20 seats."),
        Entry(id: "cafe-la-trova", name: "Cafe La Trova", cuisine: "cuban", vibe: "live music and cocktails", neighborhood: "Little Havana",
              latitude: 25.7658, longitude: -80.2194, filmingNotes: "Band plays at 8pm: music rights needed."),
        Entry(id: "surf-club", name: "The Surf Club Restaurant", cuisine: "american", vibe: "glamorous", neighborhood: "Surfside",
              latitude: 25.8830, longitude: -80.1220, filmingNotes: "Four Seasons property: no guests in frame."),
        Entry(id: "stubborn-seed", name: "Stubborn Seed", cuisine: "american", vibe: "tasting menu", neighborhood: "South Beach",
              latitude: 25.7712, longitude: -80.1350, filmingNotes: "Chef's counter seats two: perfect for a first date."),
        Entry(id: "itamae", name: "Itamae", cuisine: "peruvian", vibe: "nikkei counter", neighborhood: "Design District",
              latitude: 25.8130, longitude: -80.1932, filmingNotes: "Family-run; the ceviche moment is the payoff shot."),
        Entry(id: "mignonette", name: "Mignonette", cuisine: "seafood", vibe: "oyster bar", neighborhood: "Edgewater",
              latitude: 25.7950, longitude: -80.1890, filmingNotes: "Marble bar reflects: flag the lighting."),
        Entry(id: "la-tropical", name: "Cerveceria La Tropical", cuisine: "cuban", vibe: "brewery garden", neighborhood: "Wynwood",
              latitude: 25.7985, longitude: -80.2038, filmingNotes: "Garden is huge: wireless mics only."),
        Entry(id: "amal", name: "Amal", cuisine: "lebanese", vibe: "airy", neighborhood: "Coconut Grove",
              latitude: 25.7280, longitude: -80.2430, filmingNotes: "Mezze spread from above makes the hook."),
        Entry(id: "lung-yai", name: "Lung Yai Thai Tapas", cuisine: "thai", vibe: "no-frills and fiery", neighborhood: "Little Havana",
              latitude: 25.7660, longitude: -80.2190, filmingNotes: "No reservations: film the line, it is the story."),
        Entry(id: "sexy-fish", name: "Sexy Fish", cuisine: "asian", vibe: "maximalist", neighborhood: "Brickell",
              latitude: 25.7670, longitude: -80.1935, filmingNotes: "Art on the walls needs clearance before airing."),
    ]

    /// The migration that creates and seeds the catalogue (for `firstdate`).
    static func seedSQL() -> String {
        let rows = miami.enumerated().map { index, entry in
            "('\(entry.id)', 'firstdate', \(literal(entry.name)), '\(entry.cuisine)', \(literal(entry.vibe)), \(literal(entry.neighborhood)), "
                + "ST_SetSRID(ST_MakePoint(\(entry.longitude), \(entry.latitude)), 4326)::geography, \(literal(entry.filmingNotes)), \(index))"
        }
        return "INSERT INTO production.restaurants (id, app, name, cuisine, vibe, neighborhood, location, filming_notes, position) VALUES\n"
            + rows.joined(separator: ",\n") + ";"
    }

    private static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}
