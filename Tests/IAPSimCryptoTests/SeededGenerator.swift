import Foundation

/// SplitMix64: a tiny deterministic generator so randomized tests can be replayed by seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed for a randomized test: `CRYPTOCORE_SEED` when set (to replay a failure),
    /// otherwise fresh each run. Printed so a failing run can be reproduced.
    static func testSeed(_ name: String) -> UInt64 {
        let seed =
            ProcessInfo.processInfo.environment["CRYPTOCORE_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
        print("\(name): seed \(seed) (replay with CRYPTOCORE_SEED=\(seed))")
        return seed
    }
}
