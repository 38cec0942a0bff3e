import Foundation

/// The pre-written conversation starters (30: four for each of six cuisines, six for anyone),
/// chosen for a match by the cuisines both members prefer. This is the fallback the seed names
/// for when no generator answers; it is the only source until the HTTP generator lands.
enum IcebreakerPool {
    static let byCuisine: [String: [String]] = [
        "cuban": [
            "Best cafecito in town: where, and are you a colada sharer?",
            "Croqueta preference: ham, chicken or bacalao? Choose wisely.",
            "Little Havana on a Saturday: dominoes at Máximo Gómez or a walk down Calle Ocho?",
            "If our first date were a Cuban sandwich spot, which one would you pick?",
        ],
        "italian": [
            "Pasta night: homemade or the place that makes it better than any home?",
            "Pineapple on pizza: a dealbreaker or a conversation starter?",
            "Tiramisu or cannoli to end the night?",
            "Which Italian dish would you cook to impress someone?",
        ],
        "japanese": [
            "Omakase or build-your-own roll order?",
            "Ramen: rich tonkotsu or a clean shoyu?",
            "What is the one sushi you always order twice?",
            "Matcha or a late-night izakaya: which date sounds more like you?",
        ],
        "mexican": [
            "Tacos al pastor or carnitas? There is a right answer.",
            "Salsa heat level: mild, medium, or tears?",
            "Margarita on the rocks or frozen?",
            "The best taco truck you know: share the secret?",
        ],
        "thai": [
            "Pad thai loyalist or green curry adventurer?",
            "How many chilies can you handle on a Thai spice scale?",
            "Mango sticky rice: the best dessert in the world, agree?",
            "Street-food style or sit-down Thai for a first date?",
        ],
        "seafood": [
            "Stone crab season: are you counting the days too?",
            "Raw bar, fish tacos or a whole grilled snapper?",
            "Sunset ceviche by the water: yes or absolutely yes?",
            "Oysters: love them, or still working up the courage?",
        ],
    ]

    static let anyone = [
        "What is the best thing you ate this month?",
        "Beach day or rooftop night: which is more you?",
        "What is a restaurant you would take someone to on a first date?",
        "Breakfast for dinner: genius or chaos?",
        "What is the dish you could eat every day for a year?",
        "Coffee, cocktails or a long walk: pick our first date.",
    ]

    static let count = 3

    /// Three different starters for a match whose members share `cuisines` (lower-cased): the
    /// shared cuisines' starters first, then anyone's, in an order fixed by `seed` (the match
    /// id) so the same match always gets the same three.
    static func choose(sharedCuisines cuisines: Set<String>, seed: UUID) -> [String] {
        var generator = SeededGenerator(seed: seed)
        let themed = cuisines.sorted().flatMap { byCuisine[$0] ?? [] }.shuffled(using: &generator)
        let generic = anyone.shuffled(using: &generator)
        return Array((themed + generic).prefix(count))
    }

    /// SplitMix64 over the match id's bytes: a stable order per match on every instance.
    private struct SeededGenerator: RandomNumberGenerator {
        private var state: UInt64

        init(seed: UUID) {
            let bytes = withUnsafeBytes(of: seed.uuid) { Array($0) }
            state = bytes.reduce(0) { ($0 << 8 | $0 >> 56) ^ UInt64($1) }
        }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15  // wrapping: SplitMix64's increment is meant to overflow
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9  // wrapping multiply, as SplitMix64 specifies
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
