import Foundation

/// `SKStoreReviewController`: asks for a rating. The simulator shows nothing; the call does
/// nothing, as on a device that decides not to show the prompt.
open class SKStoreReviewController: NSObject, @unchecked Sendable {
    open class func requestReview() {}
}
