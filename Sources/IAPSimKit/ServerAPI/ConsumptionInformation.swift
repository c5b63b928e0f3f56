import IAPSimJSON

/// The body of Send Consumption Information (Apple, "ConsumptionRequest"), checked as Apple
/// checks it. Apple's rules:
/// - `customerConsented` must be `true`, or the request is refused (InvalidCustomerConsentedError);
/// - `sampleContentProvided` is a Boolean and `deliveryStatus` one of Apple's values (both
///   required); `refundPreference`, when given, `DECLINE`, `GRANT_FULL` or `GRANT_PRORATED`;
/// - `consumptionPercentage` ("consumptionPercentage"), when given, is milliunits from 0 to
///   100000; it must be 0 unless `deliveryStatus` is `DELIVERED`; it is not given for an
///   auto-renewable subscription (the App Store works it out from the time elapsed); with
///   `GRANT_PRORATED` it is more than 0 and less than 100000, and for any other product it
///   must be given: "consumptionPercentage", "If you select GRANT_PRORATED … you need to
///   provide a consumptionPercentage greater than 0", answered with
///   ConsumptionPercentageOutOfRangeError. ("refundPreference" still says a one-time
///   product "may include" one; iapsim follows the field's own page, the stricter.)
/// - a transaction the customer has through Family Sharing is refused.
///
/// Apple's pages give no numeric code for ConsumptionPercentageOutOfRangeError and
/// UndeliveredConsumptionPercentageNonZeroError: those answer 400 with the general bad-request
/// code, 4000000, and the error's name in the message.
public struct ConsumptionInformation: Sendable, Equatable {
    /// `deliveryStatus`.
    public enum DeliveryStatus: String, Sendable, CaseIterable {
        case delivered = "DELIVERED"
        case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
        case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
        case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
        case undeliveredOther = "UNDELIVERED_OTHER"
    }

    /// `refundPreference`.
    public enum RefundPreference: String, Sendable, CaseIterable {
        case decline = "DECLINE"
        case grantFull = "GRANT_FULL"
        case grantProrated = "GRANT_PRORATED"
    }

    public var sampleContentProvided: Bool
    public var deliveryStatus: DeliveryStatus
    public var refundPreference: RefundPreference?
    /// Milliunits: 40% is 40000.
    public var consumptionPercentage: Int?

    public static let invalidCustomerConsented = APIError(
        4_000_035,
        "Invalid request. The customer consented field is invalid or doesn't indicate that the customer consented.")
    public static let invalidDeliveryStatus = APIError(
        4_000_036, "Invalid request. The delivery status field is invalid.")
    public static let invalidSampleContentProvided = APIError(
        4_000_041, "Invalid request. The sample content provided field is invalid.")
    public static let invalidRefundPreference = APIError(
        4_000_044, "Invalid request. The refund preference field is invalid.")
    public static let consumptionPercentageAutoRenewableSubscription = APIError(
        4_000_209,
        "Invalid request. The consumption percentage field is not supported for auto-renewable subscription "
            + "transactions.")
    public static let consumptionPercentageOutOfRange = APIError(
        4_000_000, "ConsumptionPercentageOutOfRangeError: the consumption percentage is outside the valid range.")
    public static let undeliveredConsumptionPercentageNonZero = APIError(
        4_000_000,
        "UndeliveredConsumptionPercentageNonZeroError: the consumption percentage must be zero for the provided "
            + "delivery status.")

    /// `body` checked for `transaction`.
    /// - Throws: the `APIError` Apple answers for the first rule `body` breaks.
    public init(_ body: JSONValue, for transaction: Transaction) throws(APIError) {
        guard body["customerConsented"] == .bool(true) else { throw Self.invalidCustomerConsented }
        guard transaction.ownershipType != .familyShared else { throw APIError.familyTransactionNotSupported }
        guard case .bool(let sample)? = body["sampleContentProvided"] else { throw Self.invalidSampleContentProvided }
        guard let status = body["deliveryStatus"]?.stringValue.flatMap(DeliveryStatus.init(rawValue:)) else {
            throw Self.invalidDeliveryStatus
        }
        var preference: RefundPreference?
        if let value = body["refundPreference"], value != .null {
            guard let known = value.stringValue.flatMap(RefundPreference.init(rawValue:)) else {
                throw Self.invalidRefundPreference
            }
            preference = known
        }
        var percentage: Int?
        if let value = body["consumptionPercentage"], value != .null {
            guard transaction.productType != .autoRenewable else {
                throw Self.consumptionPercentageAutoRenewableSubscription
            }
            guard let number = value.intValue, (0...100_000).contains(number) else {
                throw Self.consumptionPercentageOutOfRange
            }
            if status != .delivered, number != 0 { throw Self.undeliveredConsumptionPercentageNonZero }
            if preference == .grantProrated, number == 0 || number == 100_000 {
                throw Self.consumptionPercentageOutOfRange
            }
            percentage = number
        }
        if preference == .grantProrated, percentage == nil, transaction.productType != .autoRenewable {
            throw Self.consumptionPercentageOutOfRange
        }
        sampleContentProvided = sample
        deliveryStatus = status
        refundPreference = preference
        consumptionPercentage = percentage
    }
}
