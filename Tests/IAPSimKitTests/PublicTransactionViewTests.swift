import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// The public form of a transaction (`storeKitJSON`: `--json`, the page, the app's view) is
/// written on its own, not on the stored form: for every shape of transaction iapsim writes,
/// each member appears once, every member is one the published schema defines, what it
/// requires is there, and nothing only the store keeps (a deletion's date) leaks out.
@Suite struct PublicTransactionViewTests {
    static let context = StoreKitContext(
        signedDate: Support.fixedDate, appTransactionID: "700000000000000001", environment: .sandbox)

    /// The published schema of a transaction, `docs/schemas/transaction.schema.json`.
    static func schema() throws -> (properties: Set<String>, required: Set<String>) {
        let path = Support.repositoryRoot + "/docs/schemas/transaction.schema.json"
        let transaction = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let properties = try #require(transaction["properties"]?.objectValue).map(\.0)
        let required = try #require(transaction["required"]?.arrayValue).compactMap(\.stringValue)
        return (Set(properties), Set(required))
    }

    @Test(arguments: JournalRoundTripTests.shapes)
    func eachShapeShowsAsTheSchemaSays(_ transaction: Transaction) throws {
        let members = try #require(transaction.storeKitJSON(Self.context).objectValue).map(\.0)
        #expect(Set(members).count == members.count, "a member twice: \(members)")
        let schema = try Self.schema()
        #expect(Set(members).isSubset(of: schema.properties), "\(Set(members).subtracting(schema.properties))")
        #expect(schema.required.isSubset(of: Set(members)), "\(schema.required.subtracting(Set(members)))")
    }

    @Test func aSharedRefundedTransactionSaysSoOnce() throws {
        let json = JournalRoundTripTests.complete.storeKitJSON(Self.context)
        #expect(json["ownershipType"] == .string("familyShared"))
        #expect(json["revocationPercentage"] == .string("67.932"))
        #expect(json["deletionDate"] == nil)
        var full = JournalRoundTripTests.complete
        full.revocationPercentage = nil
        #expect(full.storeKitJSON(Self.context)["revocationPercentage"] == .string("100"))
    }
}
