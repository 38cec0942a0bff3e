import Postgres

/// The categories Swivo sessions start on, and their options: data, seeded once by a
/// migration; more are rows, not code.
enum SessionCatalog {
    static let categories: [(id: String, name: String, icon: String, options: [String])] = [
        ("cuisines", "Cuisines", "fork.knife", ["Thai", "Sushi", "Pizza", "Tacos", "Ramen", "Indian", "Burgers", "Greek",
                                                "Korean BBQ", "Vietnamese", "Dim Sum", "Mediterranean"]),
        ("movies", "Movies", "film", ["Comedy", "Thriller", "Romance", "Sci-fi", "Horror", "Documentary", "Animation",
                                      "Action", "Drama", "Musical"]),
        ("activities", "Activities", "figure.walk", ["Bowling", "Karaoke", "Escape room", "Hiking", "Museum", "Mini golf",
                                                    "Board games", "Picnic", "Climbing", "Cinema"]),
        ("drinks", "Drinks", "wineglass", ["Cocktail bar", "Wine bar", "Brewery", "Rooftop", "Coffee", "Tea house",
                                           "Speakeasy", "Pub"]),
    ]

    /// Option ids are `<category>-<label as a slug>`, stable across deployments.
    static func optionID(category: String, label: String) -> String {
        let slug = label.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
        return "\(category)-\(slug)"
    }

    static var seed: Migration {
        var sql = ""
        for (position, category) in categories.enumerated() {
            sql += "INSERT INTO discovery.categories (id, name, icon, position) VALUES "
                + "('\(category.id)', '\(category.name)', '\(category.icon)', \(position));\n"
            let rows = category.options.enumerated().map { index, label in
                "('\(optionID(category: category.id, label: label))', '\(category.id)', '\(label)', \(index))"
            }
            sql += "INSERT INTO discovery.options (id, category_id, label, position) VALUES \(rows.joined(separator: ", "));\n"
        }
        return Migration(version: 8, name: "session categories", sql: sql)
    }
}
