import IAPSimJSON

/// An App Store Server API error: the HTTP status is the first three digits of `errorCode`,
/// and the body is `{"errorCode": N, "errorMessage": "…"}` (Apple, "Error Codes").
public struct APIError: Error, Equatable, Sendable {
    public var errorCode: Int
    public var errorMessage: String
    /// 401 carries no error code, as Apple answers a bad token.
    public var status: Int { errorCode < 1000 ? errorCode : errorCode / 10_000 }

    public init(_ errorCode: Int, _ errorMessage: String) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    public static let unauthorized = APIError(401, "Unauthenticated")
    public static let generalBadRequest = APIError(4_000_000, "Bad request.")
    public static let invalidAppIdentifier = APIError(4_000_002, "Invalid request app identifier.")
    public static let invalidRequestRevision = APIError(4_000_005, "Invalid request revision.")
    public static let invalidTransactionId = APIError(4_000_006, "Invalid transaction id.")
    public static let invalidOriginalTransactionId = APIError(4_000_008, "Invalid original transaction id.")
    public static let invalidExtendByDays = APIError(4_000_009, "Invalid extend by days value.")
    public static let invalidExtendReasonCode = APIError(4_000_010, "Invalid extend reason code.")
    public static let invalidRequestIdentifier = APIError(4_000_011, "Invalid request identifier.")
    public static let startDateTooFarInPast = APIError(4_000_012, "Start date too far in past.")
    public static let startDateAfterEndDate = APIError(4_000_013, "Start date after end date.")
    public static let invalidPaginationToken = APIError(4_000_014, "Invalid pagination token.")
    public static let invalidStartDate = APIError(4_000_015, "Invalid start date.")
    public static let invalidEndDate = APIError(4_000_016, "Invalid end date.")
    public static let paginationTokenExpired = APIError(4_000_017, "Pagination token expired.")
    public static let invalidNotificationType = APIError(4_000_018, "Invalid notification type.")
    public static let multipleFiltersSupplied = APIError(4_000_019, "Multiple filters supplied.")
    public static let invalidTestNotificationToken = APIError(4_000_020, "Invalid test notification token.")
    public static let invalidSort = APIError(4_000_021, "Invalid sort.")
    public static let invalidProductType = APIError(4_000_022, "Invalid product type.")
    public static let invalidProductId = APIError(4_000_023, "Invalid product id.")
    public static let invalidSubscriptionGroupIdentifier = APIError(4_000_024, "Invalid subscription group identifier.")
    public static let invalidInAppOwnershipType = APIError(4_000_026, "Invalid in-app ownership type.")
    public static let invalidEmptyStorefrontCountryCodeList = APIError(
        4_000_027, "Invalid empty storefront country code list.")
    public static let invalidStorefrontCountryCode = APIError(4_000_028, "Invalid storefront country code.")
    public static let invalidRevoked = APIError(4_000_030, "Invalid revoked value.")
    public static let invalidStatus = APIError(4_000_031, "Invalid status.")
    public static let appTransactionIdNotSupported = APIError(
        4_000_048, "Invalid request. App transactionId not supported by this endpoint.")
    public static let invalidAppAccountToken = APIError(4_000_183, "Invalid app account token.")
    public static let familyTransactionNotSupported = APIError(
        4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
    public static let transactionIdIsNotOriginalTransactionId = APIError(
        4_000_187, "Invalid request. The transaction ID provided is not an original transaction ID.")
    public static let subscriptionExtensionIneligible = APIError(4_030_004, "Subscription extension ineligible.")
    public static let subscriptionMaxExtension = APIError(4_030_005, "Subscription max extension.")
    public static let familySharedSubscriptionExtensionIneligible = APIError(
        4_030_007,
        "Subscriptions that users obtain through Family Sharing can't get a renewal date extension directly.")
    public static let accountNotFound = APIError(4_040_001, "Account not found.")
    public static let originalTransactionIdNotFound = APIError(4_040_005, "Original transaction id not found.")
    public static let serverNotificationUrlNotFound = APIError(4_040_007, "No notification URL found.")
    public static let testNotificationNotFound = APIError(4_040_008, "Test notification not found.")
    public static let statusRequestNotFound = APIError(4_040_009, "Status request not found.")
    public static let transactionIdNotFound = APIError(4_040_010, "Transaction id not found.")
    public static let notFound = APIError(4_040_000, "Not found.")
    public static let methodNotAllowed = APIError(4_050_000, "Method not allowed.")
    public static let generalInternal = APIError(5_000_000, "An unknown error occurred.")

    // The errors a client backs off from and tries again (Apple, "Error Codes": the
    // `…RetryableError` objects, and "Identifying rate limits" for RateLimitExceededError).
    public static let rateLimitExceeded = APIError(4_290_000, "Rate limit exceeded.")
    public static let accountNotFoundRetryable = APIError(4_040_002, "Account not found. Please try again.")
    public static let appNotFoundRetryable = APIError(4_040_004, "App not found. Please try again.")
    public static let originalTransactionIdNotFoundRetryable = APIError(
        4_040_006, "Original transaction id not found. Please try again.")
    public static let generalInternalRetryable = APIError(5_000_001, "An unknown error occurred. Please try again.")

    /// The errors `iapsim server-error` arms, by the name of Apple's error object.
    public static let backOff: [(name: String, error: APIError)] = [
        ("RateLimitExceededError", .rateLimitExceeded),
        ("AccountNotFoundRetryableError", .accountNotFoundRetryable),
        ("AppNotFoundRetryableError", .appNotFoundRetryable),
        ("OriginalTransactionIdNotFoundRetryableError", .originalTransactionIdNotFoundRetryable),
        ("GeneralInternalRetryableError", .generalInternalRetryable),
        ("GeneralInternalError", .generalInternal),
    ]

    /// The name of Apple's error object for a back-off error, e.g. `RateLimitExceededError`.
    public var backOffName: String? { Self.backOff.first { $0.error == self }?.name }

    /// The error body.
    public var json: JSONValue {
        .object([("errorCode", .int(errorCode)), ("errorMessage", .string(errorMessage))])
    }
}
