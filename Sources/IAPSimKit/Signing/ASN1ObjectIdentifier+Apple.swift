import IAPSimCrypto

extension ASN1ObjectIdentifier {
    /// Apple's marker for the WWDR intermediate CA that issues App Store signing certificates.
    public static let appleWWDRIntermediateMarker = ASN1ObjectIdentifier(components: [1, 2, 840, 113635, 100, 6, 2, 1])!
    /// Apple's marker for the App Store receipt/transaction signing leaf certificate.
    public static let appleStoreSigningMarker = ASN1ObjectIdentifier(components: [1, 2, 840, 113635, 100, 6, 11, 1])!
}
