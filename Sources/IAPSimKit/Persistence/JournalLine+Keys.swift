import Foundation

extension JournalLine {
    /// The members of `commitmentInfo`, the one nested object of a line; their tokens follow
    /// the transaction's.
    enum CommitmentKey: String, CaseIterable {
        case billingPeriodNumber, totalBillingPeriods, expirationDate, price

        var slot: Int { Key.count + Int(unsafeBitCast(self, to: UInt8.self)) }
    }

    /// Every member's token: the transaction's, then `commitmentInfo`'s.
    static let slotCount = Key.count + CommitmentKey.allCases.count

    /// Member names as bytes, each with its token's place: finds a member from the bytes of
    /// its name, without making a `String`, in a few instructions — it runs for every member
    /// of every line an index rebuild reads.
    ///
    /// A name's length and its two ends (`hash`), multiplied by a seed chosen when the table is
    /// built so that no two names share a place, give the one name it can be; comparing the
    /// bytes decides.
    struct KeyNames: Sendable {
        /// The names, one after another.
        private var bytes: [UInt8] = []
        /// By hash: a name's start in `bytes` (bits 32 and up), length (16 to 31) and slot
        /// (0 to 15); 0 where no name hashes.
        private var table = [UInt64](repeating: 0, count: 256)
        /// The seed that places every name apart: odd, so that it loses no bit of the key.
        private var seed: UInt64 = 1
        /// The slots these names fill.
        let slots: Range<Int>

        /// `names[k]` fills slot `base + k`, but for `leftOut`, as a test leaves a name out.
        init(_ names: [String], base: Int, leavingOut leftOut: String? = nil) {
            slots = base..<base + names.count
            let kept = names.indices.filter { names[$0] != leftOut && !names[$0].isEmpty }
            var starts: [Int] = []
            for k in kept {
                starts.append(bytes.count)
                bytes += names[k].utf8
            }
            // Most seeds place a few dozen names in 256 places apart; two names alike in all
            // that is hashed (their length and both ends) never are.
            var placed = false
            search: for step in 0..<10_000 as Range<UInt64> {
                seed = 0x9E37_79B9_7F4A_7C15 &* (step + 1) | 1
                for place in table.indices { table[place] = 0 }
                for (n, k) in kept.enumerated() {
                    let length = names[k].utf8.count
                    let place = bytes.withUnsafeBufferPointer {
                        Self.hash($0.baseAddress! + starts[n], length, seed: seed)
                    }
                    guard table[place] == 0 else { continue search }
                    table[place] = UInt64(starts[n]) << 32 | UInt64(length) << 16 | UInt64(base + k)
                }
                placed = true
                break
            }
            precondition(placed, "no seed places the journal's member names apart: hash another byte")
        }

        /// The transaction's members.
        static let transaction = KeyNames(Key.allCases.map { $0.rawValue }, base: 0)
        /// `commitmentInfo`'s members.
        static let commitment = KeyNames(CommitmentKey.allCases.map { $0.rawValue }, base: Key.count)

        /// The place of the name of `count` bytes (1 or more) at `name`: its length and its
        /// first and last eight bytes (two loads that cover all of a name of up to 16 bytes, and
        /// both ends of a longer one), so names alike but for a few letters in their middle —
        /// `revocationDate` and `revocationType` — still hash apart.
        @inline(__always)
        private static func hash(_ name: UnsafePointer<UInt8>, _ count: Int, seed: UInt64) -> Int {
            let raw = UnsafeRawPointer(name)
            let head: UInt64
            let tail: UInt64
            switch count {
            case 8...:
                head = raw.loadUnaligned(as: UInt64.self)
                tail = raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            case 4...7:
                head = UInt64(raw.loadUnaligned(as: UInt32.self))
                tail = UInt64(raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
            case 2...3:
                head = UInt64(raw.loadUnaligned(as: UInt16.self))
                tail = UInt64(raw.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self))
            default:
                head = UInt64(name[0])
                tail = 0
            }
            var key = (head &* 0x9E37_79B9_7F4A_7C15) ^ (tail &+ UInt64(truncatingIfNeeded: count))
            key ^= key >> 29
            return Int((key &* seed) >> 56)
        }

        /// The slot of the member named `name`; nil for a name iapsim does not write.
        @inline(__always)
        func slot(of name: UnsafeBufferPointer<UInt8>) -> Int? {
            let count = name.count
            guard count > 0, let start = name.baseAddress else { return nil }
            let entry = table[Self.hash(start, count, seed: seed)]
            guard entry >> 16 & 0xFFFF == count else { return nil }
            let same = bytes.withUnsafeBufferPointer {
                Self.equal(UnsafeRawPointer($0.baseAddress! + Int(entry >> 32)), UnsafeRawPointer(start), count)
            }
            return same ? Int(entry & 0xFFFF) : nil
        }

        /// Whether the `count` bytes at `a` and `b` are the same: two loads of each that cover
        /// them, as `memcmp` does for a few bytes, without calling it.
        @inline(__always)
        private static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
            func same<Word: FixedWidthInteger>(_: Word.Type, at offset: Int) -> Bool {
                a.loadUnaligned(fromByteOffset: offset, as: Word.self)
                    == b.loadUnaligned(fromByteOffset: offset, as: Word.self)
            }
            switch count {
            case 1: return same(UInt8.self, at: 0)
            case 2...3: return same(UInt16.self, at: 0) && same(UInt16.self, at: count - 2)
            case 4...7: return same(UInt32.self, at: 0) && same(UInt32.self, at: count - 4)
            case 8...16: return same(UInt64.self, at: 0) && same(UInt64.self, at: count - 8)
            case 17...24:
                return same(UInt64.self, at: 0) && same(UInt64.self, at: 8) && same(UInt64.self, at: count - 8)
            default: return memcmp(a, b, count) == 0
            }
        }
    }
}
