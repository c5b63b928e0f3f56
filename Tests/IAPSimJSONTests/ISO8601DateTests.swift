import Foundation
import Testing

@testable import IAPSimJSON

/// ISO 8601 dates as iapsim writes them: years 0001 to 9999 in UTC, whole seconds, on the
/// proleptic Gregorian calendar; impossible dates are refused.
@Suite struct ISO8601DateTests {
    @Test func theFormatsBoundsReadAndWriteThemselves() throws {
        #expect(ISO8601Date.string(ISO8601Date.earliest) == "0001-01-01T00:00:00Z")
        #expect(ISO8601Date.string(ISO8601Date.latest) == "9999-12-31T23:59:59Z")
        #expect(ISO8601Date.date("0001-01-01T00:00:00Z") == ISO8601Date.earliest)
        #expect(ISO8601Date.date("9999-12-31T23:59:59Z") == ISO8601Date.latest)
        #expect(ISO8601Date.string(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(ISO8601Date.string(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(ISO8601Date.string(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        // Never five digits or a bare year: a date past the range is written as its bound.
        #expect(ISO8601Date.string(ISO8601Date.latest + 86_400) == "9999-12-31T23:59:59Z")
        #expect(ISO8601Date.string(Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59Z")
        #expect(ISO8601Date.expandedString(ISO8601Date.latest + 1) == "+10000-01-01T00:00:00Z")
        #expect(ISO8601Date.expandedString(ISO8601Date.earliest - 86_400) == "0000-12-31T00:00:00Z")
    }

    @Test(arguments: [
        "2030-02-30T00:00:00Z", "2030-04-31T00:00:00Z", "2100-02-29T00:00:00Z", "2030-13-01T00:00:00Z",
        "2030-00-10T00:00:00Z", "2030-01-00T00:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01T23:60:00Z",
        "2030-01-01T23:59:60Z", "2030-01-01T00:00:00.Z", "2030-01-01T00:00:00+24:00",
    ])
    func impossibleDatesAreRefused(_ text: String) {
        #expect(ISO8601Date.date(text) == nil)
    }

    @Test func leapDaysAndOffsetsParse() {
        #expect(ISO8601Date.date("2000-02-29T00:00:00Z").map(ISO8601Date.string) == "2000-02-29T00:00:00Z")
        #expect(ISO8601Date.date("2028-02-29T12:00:00+02:00").map(ISO8601Date.string) == "2028-02-29T10:00:00Z")
        #expect(ISO8601Date.date("1582-10-10T00:00:00Z").map(ISO8601Date.string) == "1582-10-10T00:00:00Z")
    }

    /// Any second of the range, written and read back, is itself.
    @Test func everyRepresentableSecondRoundTrips() {
        var random = SeededRandom(label: "ISO8601Date round trip")
        let span = UInt64(ISO8601Date.latest.timeIntervalSince(ISO8601Date.earliest))
        for _ in 0..<20_000 {
            let date = ISO8601Date.earliest + Double(random.next() % (span + 1))
            let text = ISO8601Date.string(date)
            #expect(ISO8601Date.date(text) == date, "\(text) (seed \(random.seed))")
        }
    }
}
