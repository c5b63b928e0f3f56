/// "Did you mean …?": the known words nearest a mistyped one, for every list iapsim knows
/// (commands, options, setting keys, product identifiers, customers).
public enum Suggestion {
    /// The candidate nearest `word`, if it is near enough to be a slip of the keyboard.
    public static func nearest(to word: String, among candidates: [String]) -> String? {
        ranked(word, among: candidates, limit: 1).first
    }

    /// Up to `limit` candidates near `word`, nearest first; case is ignored, so
    /// `com.example.app.Book` finds `com.example.app.book` first of all.
    public static func ranked(_ word: String, among candidates: [String], limit: Int = 3) -> [String] {
        let folded = word.lowercased()
        let bound = max(2, word.count / 3)
        var scored: [(word: String, score: Int)] = []
        for candidate in candidates {
            let score = distance(folded, candidate.lowercased())
            if score <= bound { scored.append((candidate, score)) }
        }
        scored.sort { $0.score != $1.score ? $0.score < $1.score : $0.word < $1.word }
        let near = scored.prefix(limit).map(\.word)
        guard near.isEmpty, let last = folded.split(separator: ".").last, folded.contains(".") else { return near }
        // A reverse-DNS identifier of another app (`com.acme.game.book`): the products that
        // end the same way (`com.example.app.book`).
        return Array(candidates.filter { $0.lowercased().split(separator: ".").last == last }.sorted().prefix(limit))
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
