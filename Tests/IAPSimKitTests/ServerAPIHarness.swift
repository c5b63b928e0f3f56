import Foundation
import IAPSimCrypto
import IAPSimJSON
import IAPSimTestSupport
import Testing

@testable import IAPSimKit

/// A session on the fixture catalog (every product family-shareable, so sharing can be
/// tried), its clock, and the App Store Server API over it, called as the HTTP front end
/// calls it; signed items are read back from their payloads.
struct ServerAPIHarness {
    let catalog: Catalog
    let clock = Support.Clock()
    let session: StoreSession
    let api: AppStoreServerAPI

    /// One signing identity for every harness of the test process: making one takes keys.
    static let identity: SigningIdentity = {
        try! SigningIdentity.loadOrCreate(in: Support.temporaryDirectory() + "/certs", lockTimeout: 5)
            .withReceiptChain(lockTimeout: 5, make: ReceiptChainFixture.make)
    }()

    /// The fixture catalog with every product family-shareable, and `fx.plus.yearly` also
    /// offered monthly ($1.99 a month in a $23.88 commitment, format 5's `billingPlans`).
    static func shareableCatalog() throws -> Catalog {
        let text = try String(contentsOfFile: Support.fixture("valid.storekit"), encoding: .utf8)
        let path = Support.temporaryDirectory() + "/shareable.storekit"
        let plans = """
            "billingPlans": [
              {"billingPlanType": "BILLED_UPFRONT", "displayPrice": "19.99", "commitmentDisplayPrice": "19.99",
               "internalID": "P1", "isEnabled": true},
              {"billingPlanType": "MONTHLY", "displayPrice": "1.99", "commitmentDisplayPrice": "23.88",
               "internalID": "P2", "isEnabled": true}
            ],
            "productID": "fx.plus.yearly",
            """
        try text.replacingOccurrences(of: "\"familyShareable\": false", with: "\"familyShareable\": true")
            .replacingOccurrences(of: "\"productID\": \"fx.plus.yearly\",", with: plans)
            .write(toFile: path, atomically: true, encoding: .utf8)
        return try Catalog.load(CatalogSource(storeKitPath: path, productIDsPath: nil))
    }

    init(catalog: Catalog? = nil, environment: AppStoreEnvironment? = nil) throws {
        self.catalog = try catalog ?? Self.shareableCatalog()
        let clock = self.clock
        session = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: self.catalog.store.settings)
        api = AppStoreServerAPI(
            session: session, signer: StoreSession.Signer(identity: Self.identity, environment: environment),
            verifier: BearerTokenVerifier(), realNow: { Date() })
    }

    /// A well-formed bearer token for com.example.app (no key is checked without `--key-file`).
    static let authorization: String = {
        func segment(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }
        let exp = Int(Date().timeIntervalSince1970) + 3000
        return "Bearer " + segment(#"{"alg":"ES256","kid":"K","typ":"JWT"}"#) + "."
            + segment(#"{"iss":"i","bid":"com.example.app","aud":"appstoreconnect-v1","exp":\#(exp)}"#) + "."
            + segment("unsigned")
    }()

    /// An answer: the status and, when there is one, the JSON body.
    struct Answer {
        var status: Int
        var body: JSONValue?

        /// `errorCode` of an error answer.
        var errorCode: Int? { body?["errorCode"]?.intValue }
    }

    /// The answer to `method` `path` (from `/inApps`), with `query` and a JSON `body`.
    /// `host`: the Apple host a tunnel named, nil for iapsim's own address.
    func call(
        _ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil,
        host: AppleHost? = nil, authorization: String? = Self.authorization
    ) -> Answer {
        let request = APIRequest(
            method: method, pathComponents: path.split(separator: "/").map(String.init),
            query: query.map { (name: $0.0, value: $0.1) }, authorization: authorization,
            body: body?.bytes(compact: true) ?? [], host: host)
        let response = api.respond(request)
        return Answer(status: response.status, body: response.body.isEmpty ? nil : try? JSONValue.parse(response.body))
    }

    /// The decoded payload of a compact JWS.
    static func payload(_ jws: String?) throws -> JSONValue {
        let parts = try #require(jws).split(separator: ".")
        try #require(parts.count == 3)
        return try JSONValue.parse(try Base64URL.decode(parts[1]))
    }

    /// Buys `id` (with `token` as its app account token), as the CLI's `buy` does.
    @discardableResult
    func buy(_ id: String, token: String? = nil, billingPlan: BillingPlanType = .billedUpfront) throws -> Transaction {
        let request = try PurchaseRequest(
            productID: id, appAccountToken: try token.map { try UUID(appAccountToken: $0) }, billingPlan: billingPlan)
        let result = try session.purchase(try session.quote(request, in: catalog), in: catalog).result
        guard case .purchased(let transaction) = result else {
            Issue.record("expected a purchase of \(id), got \(result)")
            throw CancellationError()
        }
        return transaction
    }

    /// `buy --as-family-member`: the organiser shares `id` with this account.
    @discardableResult
    func share(_ id: String) throws -> Transaction {
        try session.shareFromFamily(try PurchaseRequest(productID: id, isFamilyMember: true), in: catalog)
    }

    /// The signed transaction `id`, decoded.
    func signedTransaction(_ id: UInt64) throws -> JSONValue {
        try session.signedTransaction(id, signer: StoreSession.Signer(identity: Self.identity)).payload
    }

    /// The signed renewal info of the chain `selector` names, decoded.
    func signedRenewalInfo(_ selector: String) throws -> JSONValue {
        try session.signedRenewalInfo(selector, signer: StoreSession.Signer(identity: Self.identity)).payload
    }

    /// Milliseconds since 1970, as signed data has dates.
    static func ms(_ date: Date?) -> JSONValue? { date.map(SignedPayloads.milliseconds) }
}
