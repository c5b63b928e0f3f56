import Foundation
import IAPSimJSON

/// Why the clock could not move.
public enum ClockError: Error, Equatable, Sendable {
    /// Time only moves forward: transactions already dated after the target would make no sense.
    case backwards(from: Date, to: Date)
    case invalidDuration(String)
    case invalidDate(String)
    /// The target (`value`, as given or worked out) lies past `SimulatedClock.latest` or
    /// before `SimulatedClock.earliest`, the `bound` it would cross.
    case outOfRange(value: String, bound: Date)
}

extension ClockError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .backwards(let from, let to):
            "the clock only moves forward: it reads \(ISO8601Date.string(from)), \(ISO8601Date.string(to)) is earlier; 'iapsim reset' starts over"
        case .invalidDuration(let text):
            "\(text): expected an ISO 8601 duration such as P1M, P1Y, P2W, P3D or PT12H, or 30d, 2w, 12h, 1y, 3mo "
                + "(a bare m is minutes or months: write 5min or 5mo)"
        case .invalidDate(let text):
            "\(text): expected an existing date in ISO 8601 form such as 2027-01-01T00:00:00Z, "
                + "from \(ISO8601Date.string(SimulatedClock.earliest)) to \(ISO8601Date.string(SimulatedClock.latest))"
        case .outOfRange(let value, let bound) where bound >= SimulatedClock.latest:
            "\(value): past \(ISO8601Date.string(bound)), the latest the simulated clock goes "
                + "(the state holds dates up to \(ISO8601Date.string(ISO8601Date.latest)), and renewals need room)"
        case .outOfRange(let value, let bound):
            "\(value): before \(ISO8601Date.string(bound)), the earliest date the state holds"
        }
    }
}
