import Foundation
import IAPSimCrypto

extension AppReceipt.InAppPurchase {
    /// The in-app purchase receipt of `transaction`, with the fields Apple's "Receipt Fields"
    /// gives it: the subscription fields (expiry, web order line item, trial and introductory
    /// flags, promotional offer) for auto-renewable subscriptions only.
    public init(_ transaction: Transaction) {
        self.init(
            quantity: Int64(transaction.purchasedQuantity), productID: transaction.productID,
            transactionID: String(transaction.id), originalTransactionID: String(transaction.originalID),
            purchaseDate: transaction.purchaseDate, originalPurchaseDate: transaction.originalPurchaseDate)
        cancellationDate = transaction.revocationDate
        guard transaction.productType == .autoRenewable else { return }
        subscriptionExpirationDate = transaction.expirationDate
        webOrderLineItemID = transaction.webOrderLineItemID.flatMap { Int64($0) }
        let introductory = transaction.offerType == .introductory
        isTrialPeriod = introductory && transaction.offerPaymentMode == .freeTrial
        isInIntroOfferPeriod = introductory && transaction.offerPaymentMode != .freeTrial
        if transaction.offerType == .promotional { promotionalOfferID = transaction.offerID }
    }
}

extension Transaction {
    /// Whether the app receipt lists this transaction (Apple, "Receipt Fields", In-App Purchase
    /// Receipt): a consumable until the app finishes it; a non-consumable, an auto-renewable or
    /// a non-renewing subscription for good.
    public func isInReceipt(finished: Bool) -> Bool {
        productType != .consumable || !finished
    }
}

extension StoreSession {
    /// What an app receipt is made for: the device whose identifier the hash binds it to, and
    /// the environment, over the session's `environment` setting.
    public struct ReceiptRequest: Sendable {
        public var deviceIdentifier: UUID
        public var environment: AppStoreEnvironment?

        public init(deviceIdentifier: UUID, environment: AppStoreEnvironment? = nil) {
            self.deviceIdentifier = deviceIdentifier
            self.environment = environment
        }

        /// The device identifier used when none is given: fixed, so receipts made without
        /// one are the same for the same state and clock.
        public static let defaultDeviceIdentifier = UUID(uuidString: "00000000-0000-4000-8000-000000000000")!
    }

    /// The account's app receipt now: the app's fields from the settings and the account, and
    /// one in-app purchase receipt per transaction the receipt lists (`isInReceipt`), in
    /// identifier order. Versions are `1.0` in the sandbox, as Apple's sandbox receipts say,
    /// else `1`, as the app transaction says.
    public func appReceipt(_ request: ReceiptRequest) throws -> AppReceipt {
        let (state, moment) = try snapshot()
        let environment = request.environment ?? moment.settings.environment
        let bundleID = moment.settings.bundleID
        let appTransactionID = state.account.appTransactionID ?? Self.appTransactionID(firstUse: moment.now)
        // 16 bytes that change with each receipt, yet are fixed for a fixed clock and state.
        let millisecond = Int64((moment.now.timeIntervalSince1970 * 1000).rounded(.down))
        let opaque = Array(SHA256.hash(Array("\(appTransactionID):\(millisecond)".utf8)).prefix(16))
        var purchases: [AppReceipt.InAppPurchase] = []
        let history = try history()
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (`history` streams the journal: it is no Sequence)
        try history.forEach { entry in
            if entry.transaction.isInReceipt(finished: entry.isFinished) {
                purchases.append(AppReceipt.InAppPurchase(entry.transaction))
            }
        }
        let version = environment == .sandbox ? "1.0" : "1"
        return AppReceipt(
            receiptType: AppReceipt.receiptType(for: environment), bundleID: bundleID, applicationVersion: version,
            opaqueValue: opaque,
            sha1Hash: AppReceipt.hash(
                deviceIdentifier: request.deviceIdentifier, opaqueValue: opaque, bundleID: bundleID),
            creationDate: moment.now, originalApplicationVersion: version, inAppPurchases: purchases)
    }
}

extension SigningIdentity {
    /// `receipt` signed as the App Store signs app receipts: PKCS #7 SignedData over the
    /// payload, signed with sha256WithRSAEncryption by the RSA receipt chain's leaf (marked
    /// 1.2.840.113635.100.6.11.1, Apple's receipt-signing marker), carrying the leaf, the
    /// intermediate and the root.
    /// - Returns: the DER bytes, what `Bundle.main.appStoreReceiptURL` holds.
    /// - Throws: `SigningError.noReceiptChain` when the identity has no RSA chain yet
    ///   (`withReceiptChain` gives it one).
    public func signReceipt(_ receipt: AppReceipt) throws -> [UInt8] {
        guard let receiptChain else { throw SigningError.noReceiptChain(directory: directory) }
        return try CMSSignedData.sign(
            content: receipt.payload, signer: receiptChain.leaf, key: receiptChain.leafKey,
            certificates: receiptChain.certificatesLeafFirst)
    }
}
