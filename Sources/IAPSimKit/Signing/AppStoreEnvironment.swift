/// The server environment signed data says it comes from (`environment` in
/// JWSTransactionDecodedPayload, `receiptType` in an app transaction). Apple's
/// `SignedDataVerifier` checks the signature and the certificate chain for `Sandbox` and
/// `Production`, and only the shape for `Xcode` and `LocalTesting`.
public enum AppStoreEnvironment: String, Sendable, CaseIterable {
    case sandbox = "Sandbox"
    case production = "Production"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"

    /// The environment named `text`, in any case (`sandbox`, `Sandbox`, `LOCAL_TESTING`).
    public static func named(_ text: String) -> AppStoreEnvironment? {
        let key = text.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
        return allCases.first { $0.rawValue.lowercased() == key }
    }
}
