import IAPSimHTTP

extension DeliveryAttempt.Result {
    /// The `sendAttemptResult` Apple records for a POST that got no usable answer.
    init(_ failure: HTTPClient.Failure) {
        switch failure {
        case .timedOut: self = .timedOut
        case .socketError: self = .socketIssue
        case .noResponse: self = .noResponse
        case .prematureClose: self = .prematureClose
        case .invalidResponse: self = .invalidResponse
        }
    }
}
