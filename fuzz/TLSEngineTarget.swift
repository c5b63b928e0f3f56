import Foundation
import IAPSimCrypto
import IAPSimTLS

// libFuzzer target: the TLS 1.3 server engine, fed arbitrary bytes as the client's records.
// The first byte picks the size of the pieces the rest is fed in. The server's randomness is
// fixed (and ECDSA nonces are RFC 6979's), so the engine is deterministic: besides never
// trapping, hanging or leaking, it must answer the same bytes and end with the same error
// whether they come at once or in pieces, and any error must come with an alert to send.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let pieceSize = Int(data[0]) + 1
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let whole = run([bytes[...]])
    let pieces = stride(from: 0, to: bytes.count, by: pieceSize).map { bytes[$0..<min($0 + pieceSize, bytes.count)] }
    let inPieces = run(pieces)
    if whole != inPieces {
        fatalError("fed at once: \(whole)\nfed in pieces of \(pieceSize): \(inPieces)")
    }
    return 0
}

private struct Outcome: Equatable {
    var outgoing: [UInt8] = []
    var application: [UInt8] = []
    var events: [TLSEvent] = []
    var error: TLSError?
}

private func run(_ pieces: [ArraySlice<UInt8>]) -> Outcome {
    var engine = TLSServerEngine(configuration: FuzzServer.configuration)
    var outcome = Outcome()
    for piece in pieces {
        let output = engine.receive(piece)
        outcome.outgoing += output.outgoing
        outcome.application += output.application
        outcome.events += output.events
        if let error = output.error {
            if case .alertSent = error, output.outgoing.isEmpty { fatalError("\(error) sent no alert") }
            outcome.error = error
        }
    }
    return outcome
}

/// One TEST ONLY self-signed identity for every run, made once.
private enum FuzzServer {
    static let configuration: TLSServerConfiguration = {
        let key = try! P256PrivateKey(rawRepresentation: [UInt8](repeating: 0x01, count: 32))
        let name = DistinguishedName(commonName: "iapsim TEST ONLY fuzz", organization: "iapsim TEST ONLY")
        let certificate = try! X509CertificateBuilder(
            serialNumber: [1], issuer: name, subject: name, notBefore: Date(timeIntervalSince1970: 0),
            notAfter: Date(timeIntervalSince1970: 4_000_000_000), subjectPublicKey: key.publicKey
        ).sign(with: key)
        let identity = TLSIdentity(certificateChain: [certificate.derRepresentation], privateKey: key)
        return TLSServerConfiguration(
            randomBytes: { count in (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) } },
            identity: { _ in identity })
    }()
}
