/// Comparisons whose running time does not depend on where secret bytes differ.
public enum ConstantTime {
    /// Compares two byte strings without an early exit; different lengths compare unequal.
    ///
    /// Only the lengths leak through timing, and those are public for MACs and signatures.
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) {
            difference |= left ^ right
        }
        return difference == 0
    }
}
