import Foundation

extension Product {
    /// The style that formats a subscription period as the App Store shows it: "1 month",
    /// "2 weeks", "1 year", in the storefront's locale. Apple's is a `Date.ComponentsFormatStyle`
    /// ("subscriptionPeriodFormatStyle"), which Foundation on Linux declares without the
    /// initialiser it needs, so iapsim's is a `FormatStyle` of its own over the same input
    /// (`Range<Date>`): `period.formatted(product.subscriptionPeriodFormatStyle)` is what an
    /// app writes either way.
    public var subscriptionPeriodFormatStyle: SubscriptionPeriodFormatStyle {
        SubscriptionPeriodFormatStyle(locale: Locale(identifier: localeIdentifier))
    }

    /// Formats a date range as the calendar period it spans, in whole units: years, months,
    /// weeks or days, largest first ("1 year", "1 month", "2 weeks", "3 days"). Words come from
    /// the locale's language where iapsim knows it (English, German, French, Spanish, Italian,
    /// Portuguese, Dutch, Japanese, Chinese, Korean), else English.
    public struct SubscriptionPeriodFormatStyle: FormatStyle, Sendable {
        public typealias FormatInput = Range<Date>
        public typealias FormatOutput = String

        public var locale: Locale

        public init(locale: Locale = Locale(identifier: "en_US")) { self.locale = locale }

        public func locale(_ locale: Locale) -> Self { Self(locale: locale) }

        public func format(_ value: Range<Date>) -> String {
            let components = Self.calendar.dateComponents(
                [.year, .month, .day], from: value.lowerBound, to: value.upperBound)
            let parts: [(Int, Product.SubscriptionPeriod.Unit)]
            let days = components.day ?? 0
            if days % 7 == 0, days > 0, (components.year ?? 0) == 0, (components.month ?? 0) == 0 {
                parts = [(days / 7, .week)]
            } else {
                parts = [(components.year ?? 0, .year), (components.month ?? 0, .month), (days, .day)]
                    .filter { $0.0 != 0 }
            }
            let words = parts.isEmpty ? [Self.words(0, .day, locale)] : parts.map { Self.words($0.0, $0.1, locale) }
            return words.joined(separator: " ")
        }

        static let calendar: Calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()

        /// "2 weeks", "2 Wochen", "2週間".
        static func words(_ value: Int, _ unit: Product.SubscriptionPeriod.Unit, _ locale: Locale) -> String {
            let language = locale.language.languageCode?.identifier ?? "en"
            let table = unitNames[language] ?? unitNames["en"]!
            let (one, many) = table[unit.rawValue]
            let name = value == 1 ? one : many
            return ["ja", "zh", "ko"].contains(language) ? "\(value)\(name)" : "\(value) \(name)"
        }

        /// Singular and plural of day, week, month and year, by language.
        private static let unitNames: [String: [(String, String)]] = [
            "en": [("day", "days"), ("week", "weeks"), ("month", "months"), ("year", "years")],
            "de": [("Tag", "Tage"), ("Woche", "Wochen"), ("Monat", "Monate"), ("Jahr", "Jahre")],
            "fr": [("jour", "jours"), ("semaine", "semaines"), ("mois", "mois"), ("an", "ans")],
            "es": [("día", "días"), ("semana", "semanas"), ("mes", "meses"), ("año", "años")],
            "it": [("giorno", "giorni"), ("settimana", "settimane"), ("mese", "mesi"), ("anno", "anni")],
            "pt": [("dia", "dias"), ("semana", "semanas"), ("mês", "meses"), ("ano", "anos")],
            "nl": [("dag", "dagen"), ("week", "weken"), ("maand", "maanden"), ("jaar", "jaar")],
            "ja": [("日", "日"), ("週間", "週間"), ("か月", "か月"), ("年", "年")],
            "zh": [("天", "天"), ("周", "周"), ("个月", "个月"), ("年", "年")],
            "ko": [("일", "일"), ("주", "주"), ("개월", "개월"), ("년", "년")],
        ]

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.locale.identifier == rhs.locale.identifier }
        public func hash(into hasher: inout Hasher) { hasher.combine(locale.identifier) }
    }
}

extension Product.SubscriptionPeriod {
    /// The dates the period spans from `referenceDate`, on the Gregorian calendar.
    public func dateRange(referenceDate: Date = .now) -> Range<Date> {
        let component: Calendar.Component =
            switch unit {
            case .day: .day
            case .week: .weekOfYear
            case .month: .month
            case .year: .year
            }
        let calendar = Product.SubscriptionPeriodFormatStyle.calendar
        let end = calendar.date(byAdding: component, value: value, to: referenceDate) ?? referenceDate
        return referenceDate..<max(end, referenceDate)
    }

    /// The period formatted by a style of date ranges, such as
    /// `product.subscriptionPeriodFormatStyle`: "1 month".
    public func formatted<S: FormatStyle>(_ format: S, referenceDate: Date = .now) -> S.FormatOutput
    where S.FormatInput == Range<Date> {
        format.format(dateRange(referenceDate: referenceDate))
    }
}
