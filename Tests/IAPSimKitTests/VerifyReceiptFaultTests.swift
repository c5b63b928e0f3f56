import Foundation
import IAPSimJSON
import Testing

@testable import IAPSimKit

/// `/verifyReceipt`'s transient failures armed as `iapsim server-error` arms the API's: Apple,
/// "status" — 21002 (a temporary issue), 21005, 21009 and 21100–21199, the last with
/// `is-retryable` ("responseBody") — answered with HTTP 200 as every `/verifyReceipt` answer is.
@Suite struct VerifyReceiptFaultTests {
    let h: ServerAPIHarness
    let device = UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000ABCD")!

    init() throws { h = try ServerAPIHarness() }

    private func verify() throws -> JSONValue {
        let receipt = try h.session.appReceipt(StoreSession.ReceiptRequest(deviceIdentifier: device, environment: nil))
        let signed = try ServerAPIHarness.identity.signReceipt(receipt)
        let endpoint = VerifyReceiptEndpoint(
            session: h.session, signer: StoreSession.Signer(identity: ServerAPIHarness.identity))
        let body = JSONValue.object([("receipt-data", .string(Data(signed).base64EncodedString()))])
        return endpoint.response(method: "POST", body: body.bytes(compact: true))
    }

    private func arm(_ code: String, count: Int? = nil, endpoint: String? = nil) throws {
        let fault = try ServerFault(
            try ServerFault.effect(named: code), remaining: count, endpoint: endpoint.map { try EndpointPattern($0) }
        ).checked()
        _ = try h.session.armServerFault(fault)
    }

    @Test(arguments: [21002, 21005, 21009])
    func anArmedStatusIsAnsweredForItsCount(_ code: Int) throws {
        try h.buy("fx.plus.monthly")
        try arm(String(code), count: 2)
        for _ in 0..<2 {
            let answer = try verify()
            #expect(answer["status"] == .int(code) && answer["is-retryable"] == nil)
            #expect(answer["receipt"] == nil && answer["latest_receipt_info"] == nil)
        }
        #expect(try verify()["status"] == .int(0))
        #expect(try h.session.serverFaults().isEmpty)
    }

    @Test(arguments: [21100, 21150, 21199])
    func internalDataAccessErrorsAreRetryable(_ code: Int) throws {
        try arm(String(code))
        let answer = try verify()
        #expect(answer["status"] == .int(code) && answer["is-retryable"] == .bool(true))
        #expect(try verify()["status"] == .int(code))  // no count: every request
    }

    /// A receipt status is met by `/verifyReceipt` alone, and the API's errors by the API
    /// alone: neither spends the other's count.
    @Test func receiptStatusesAndAPIErrorsKeepToTheirEndpoints() throws {
        let bought = try h.buy("fx.levels")
        try arm("21005", count: 1)
        #expect(h.call("GET", "inApps/v1/transactions/\(bought.id)").status == 200)
        try arm("4290000", count: 1)
        #expect(try verify()["status"] == .int(21005))
        #expect(try verify()["status"] == .int(0))
        #expect(h.call("GET", "inApps/v1/transactions/\(bought.id)").status == 429)
        #expect(try h.session.serverFaults().isEmpty)
    }

    @Test func anEndpointMustMatchVerifyReceipt() throws {
        try arm("21009", endpoint: "/verify*")
        #expect(try verify()["status"] == .int(21009))
        #expect(throws: ServerFaultError.receiptStatusEndpoint("/inApps/**")) {
            try arm("21009", endpoint: "/inApps/**")
        }
        #expect(throws: ServerFaultError.unknownError("21003")) { try ServerFault.effect(named: "21003") }
        #expect(throws: ServerFaultError.unknownError("21200")) { try ServerFault.effect(named: "21200") }
    }

    /// The stored form reads back, and the public one names the status.
    @Test func anArmedStatusReadsBackAndShows() throws {
        try arm("21150", count: 3)
        let fault = try #require(try h.session.serverFaults().first)
        #expect(fault.effect == .receiptStatus(TransientReceiptStatus(21150)!) && fault.remaining == 3)
        #expect(fault.summary.hasPrefix("/verifyReceipt status 21150"))
        #expect(fault.publicJSON["receiptStatus"] == .int(21150) && fault.publicJSON["isRetryable"] == .bool(true))
    }
}
