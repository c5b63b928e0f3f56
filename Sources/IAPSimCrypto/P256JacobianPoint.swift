/// A P-256 point in Jacobian coordinates: (X, Y, Z) stands for (X/Z², Y/Z³); Z = 0 is infinity.
///
/// Jacobian form defers the field inversion to the very end of a scalar multiplication.
/// The formulas are from the Explicit-Formulas Database for a = -3 curves.
struct P256JacobianPoint: Sendable {
    var x: P256FieldElement
    var y: P256FieldElement
    var z: P256FieldElement

    static let infinity = P256JacobianPoint(x: .one, y: .one, z: .zero)

    init(x: P256FieldElement, y: P256FieldElement, z: P256FieldElement) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(_ point: P256AffinePoint) {
        self.init(x: point.x, y: point.y, z: .one)
    }

    var isInfinity: Bool { z.isZero }

    /// The affine point, or nil for infinity. One field inversion.
    var affine: P256AffinePoint? {
        guard !isInfinity else { return nil }
        let zInverse = z.inverted
        let zInverse2 = zInverse.squared
        return P256AffinePoint(x: x * zInverse2, y: y * zInverse2 * zInverse)
    }

    /// The affine x coordinate X/Z², or nil for infinity: all that ECDSA signing needs, two
    /// multiplications fewer than `affine`.
    var affineX: P256FieldElement? {
        guard !isInfinity else { return nil }
        return x * z.inverted.squared
    }

    /// 2·self ("dbl-2001-b", 3M + 5S). Infinity stays infinity (Z3 = 0); P-256 has no point of
    /// order 2, so no other input needs special care.
    @inline(__always)
    func doubled() -> P256JacobianPoint {
        let delta = z.squared
        let gamma = y.squared
        let beta = x * gamma
        let t = (x - delta) * (x + delta)
        let alpha = t.doubled + t
        let beta4 = beta.doubled.doubled
        let x3 = alpha.squared - beta4.doubled
        let z3 = (y + z).squared - gamma - delta
        let gamma2 = gamma.squared.doubled
        let y3 = alpha * (beta4 - x3) - gamma2.doubled.doubled
        return P256JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// self + q for an affine q ("madd-2007-bl", 7M + 4S), without the special cases.
    ///
    /// Wrong when self is infinity or self = ±q; callers rule those out (or select around
    /// them in constant time), which is what lets signing run without branches.
    @inline(__always)
    func addingUnchecked(_ q: P256AffinePoint) -> P256JacobianPoint {
        let z1z1 = z.squared
        let h = q.x * z1z1 - x
        let r = (q.y * z * z1z1 - y).doubled
        return finishMixedAddition(z1z1: z1z1, h: h, r: r)
    }

    /// self + q for an affine q, handling every case (variable time: public inputs only).
    func adding(_ q: P256AffinePoint) -> P256JacobianPoint {
        if isInfinity { return P256JacobianPoint(q) }
        let z1z1 = z.squared
        let h = q.x * z1z1 - x
        let r = (q.y * z * z1z1 - y).doubled
        if h.isZero {
            // Same x: either the same point (double it) or its negation (sum is infinity).
            return r.isZero ? doubled() : .infinity
        }
        return finishMixedAddition(z1z1: z1z1, h: h, r: r)
    }

    /// The rest of madd-2007-bl once H = U2 - X1 and r = 2·(S2 - Y1) are known.
    @inline(__always)
    private func finishMixedAddition(z1z1: P256FieldElement, h: P256FieldElement, r: P256FieldElement)
        -> P256JacobianPoint
    {
        let hh = h.squared
        let i = hh.doubled.doubled
        let j = h * i
        let v = x * i
        let x3 = r.squared - j - v.doubled
        let y3 = r * (v - x3) - (y * j).doubled
        let z3 = (z + h).squared - z1z1 - hh
        return P256JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// self + q for Jacobian q ("add-2007-bl", 11M + 5S), handling every case
    /// (variable time: public inputs only).
    func adding(_ q: P256JacobianPoint) -> P256JacobianPoint {
        if isInfinity { return q }
        if q.isInfinity { return self }
        let z1z1 = z.squared
        let z2z2 = q.z.squared
        let u1 = x * z2z2
        let u2 = q.x * z1z1
        let s1 = y * q.z * z2z2
        let s2 = q.y * z * z1z1
        let h = u2 - u1
        let r = (s2 - s1).doubled
        if h.isZero {
            return r.isZero ? doubled() : .infinity
        }
        let i = h.doubled.squared
        let j = h * i
        let v = u1 * i
        let x3 = r.squared - j - v.doubled
        let y3 = r * (v - x3) - (s1 * j).doubled
        let z3 = ((z + q.z).squared - z1z1 - z2z2) * h
        return P256JacobianPoint(x: x3, y: y3, z: z3)
    }

    var negated: P256JacobianPoint { P256JacobianPoint(x: x, y: y.negated, z: z) }

    /// Picks `a` where `mask` is all-ones and `b` where it is zero.
    @inline(__always)
    static func select(_ mask: UInt64, _ a: P256JacobianPoint, _ b: P256JacobianPoint) -> P256JacobianPoint {
        P256JacobianPoint(
            x: .select(mask, a.x, b.x), y: .select(mask, a.y, b.y), z: .select(mask, a.z, b.z))
    }
}
