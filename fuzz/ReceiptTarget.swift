import Foundation
import IAPSimCrypto

// libFuzzer target: the app receipt's readers and POST /verifyReceipt. Any input must be read
// or refused with a ReceiptError or CryptoError, and the endpoint must answer every body with
// one of Apple's statuses: never a crash, a trap, a hang or a leak. The bytes are tried as a
// receipt (DER, BER or Base64), as a receipt payload, as BER, as a request body, as the
// receipt-data of a well-formed request, and as edits (offset, byte) to a receipt this
// target's own chain signed, so the verifying path past the signature check is reached too.
private let endpoint: VerifyReceiptEndpoint = {
    let store = StateStore(location: StateLocation(directory: FuzzFiles.directory + "/state", lockTimeout: 5))
    let session = StoreSession(store: store, now: { Date(timeIntervalSince1970: 1_900_000_000) })
    let identity = try! SigningIdentity.loadOrCreate(in: FuzzFiles.directory + "/certs", lockTimeout: 5)
        .withReceiptChain(lockTimeout: 5)
    return VerifyReceiptEndpoint(session: session, signer: StoreSession.Signer(identity: identity))
}()

private let signed: [UInt8] = {
    let request = StoreSession.ReceiptRequest(deviceIdentifier: StoreSession.ReceiptRequest.defaultDeviceIdentifier)
    return try! endpoint.signer.identity.signReceipt(try! endpoint.session.appReceipt(request))
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? ReceiptInspection.inspect(bytes, trusting: endpoint.signer.identity.receiptTrustAnchors)
    _ = try? AppReceipt(payload: bytes)
    _ = try? BERNormalizer.definiteLengths(bytes)
    _ = try? CMSSignedData(derRepresentation: bytes)
    var edited = signed
    var index = 0
    while index + 2 < bytes.count {
        let offset = (Int(bytes[index]) << 8 | Int(bytes[index + 1])) % edited.count
        edited[offset] = bytes[index + 2]
        index += 3
    }
    let statuses = Set(VerifyReceiptEndpoint.Status.allCases.map(\.rawValue))
    for body in [
        bytes,
        Array("{\"receipt-data\":\"\(Data(bytes).base64EncodedString())\",\"password\":\"x\"}".utf8),
        Array("{\"receipt-data\":\"\(Data(edited).base64EncodedString())\"}".utf8),
    ] {
        let answer = endpoint.response(method: "POST", body: body)
        guard let status = answer["status"]?.intValue, statuses.contains(status) else {
            fatalError("verifyReceipt answered without one of Apple's statuses: \(answer)")
        }
    }
    return 0
}
