/// A finite P-256 point in affine coordinates (x, y), both in Montgomery form.
///
/// Only finite points are representable; the point at infinity exists only in Jacobian form.
struct P256AffinePoint: Equatable, Sendable {
    var x: P256FieldElement
    var y: P256FieldElement

    /// The generator G of SEC 2 / FIPS 186-4, in Montgomery form.
    static let generator = P256AffinePoint(
        x: P256FieldElement(
            montgomery: UInt256(
                0x79e7_30d4_18a9_143c, 0x75ba_95fc_5fed_b601, 0x79fb_732b_7762_2510, 0x1890_5f76_a537_55c6)),
        y: P256FieldElement(
            montgomery: UInt256(
                0xddf2_5357_ce95_560a, 0x8b4a_b8e4_ba19_e45c, 0xd2e8_8688_dd21_f325, 0x8571_ff18_2588_5d85)))

    /// Whether y^2 = x^3 - 3x + b holds.
    var isOnCurve: Bool {
        let rightSide = x.squared * x - (x.doubled + x) + P256FieldElement.curveB
        return y.squared == rightSide
    }

    /// Decodes the SEC 1 uncompressed form 04‖X‖Y, rejecting non-canonical coordinates and
    /// points off the curve (infinity has no 65-byte form, so it cannot get through).
    init(uncompressed bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == 65 else {
            throw .invalidPublicKey("an uncompressed point is 65 bytes, not \(bytes.count)")
        }
        guard bytes[0] == 0x04 else {
            throw .invalidPublicKey(
                bytes[0] == 0x02 || bytes[0] == 0x03
                    ? "compressed points are not supported" : "the point does not start with 0x04")
        }
        guard let x = P256FieldElement(bigEndianBytes: bytes[1..<33]),
            let y = P256FieldElement(bigEndianBytes: bytes[33..<65])
        else { throw .invalidPublicKey("a coordinate is not below the field prime") }
        self.init(x: x, y: y)
        guard isOnCurve else { throw .invalidPublicKey("the point is not on the P-256 curve") }
    }

    init(x: P256FieldElement, y: P256FieldElement) {
        self.x = x
        self.y = y
    }

    /// The SEC 1 uncompressed encoding 04‖X‖Y.
    var uncompressed: [UInt8] {
        [0x04] + x.bigEndianBytes + y.bigEndianBytes
    }

    var negated: P256AffinePoint { P256AffinePoint(x: x, y: y.negated) }
}
