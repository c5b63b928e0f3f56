import Foundation

/// SplitMix64, seeded from `IAPSIM_TEST_SEED`, at random, or by the caller. A random seed is
/// printed, so a failing randomised test can be replayed.
struct SeededRandom: RandomNumberGenerator {
    let seed: UInt64
    private var state: UInt64

    init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    init(label: String) {
        self.init(
            seed: ProcessInfo.processInfo.environment["IAPSIM_TEST_SEED"].flatMap { UInt64($0) }
                ?? UInt64.random(in: 0...UInt64.max))
        print("\(label): seed \(seed) (IAPSIM_TEST_SEED=\(seed) replays it)")
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
