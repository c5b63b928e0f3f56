// Apple's StoreKitTest module re-exports StoreKit (and so Foundation): a test file that
// imports `XCTest` and `StoreKitTest` alone uses `SKPaymentQueue`, `Product` and `Transaction`.
#if canImport(IAPSimStoreKit)
    @_exported import IAPSimStoreKit
#else
    @_exported import StoreKit
#endif
