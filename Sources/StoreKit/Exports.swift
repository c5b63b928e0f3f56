// Apple's StoreKit module re-exports Foundation: an app file that imports StoreKit alone uses
// `NSObject`, `Date`, `NumberFormatter`, `UserDefaults` and `Thread` without another import.
// On Linux `URLSession` lives in FoundationNetworking, which Apple's Foundation includes, so it
// comes along too.
@_exported import Foundation

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
