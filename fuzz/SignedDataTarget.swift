import Foundation
import IAPSimCrypto

// libFuzzer target: every reader of signed data and keys. Any input must parse or throw a
// CryptoError or SigningError: never a crash, a trap, a hang or a leak. The bytes are tried
// as DER (certificate, PKCS#8 and SEC 1 private keys, SPKI public key, DER signature), as PEM
// text and as a compact JWS.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? X509Certificate(derRepresentation: bytes)
    _ = try? P256PrivateKey(derRepresentation: bytes)
    _ = try? P256PrivateKey(sec1DERRepresentation: bytes)
    _ = try? P256PublicKey(derRepresentation: bytes)
    _ = try? ECDSASignature(derRepresentation: bytes)
    _ = try? ECDSASignature(rawRepresentation: bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? PEMDocument.parseAll(text)
    _ = try? X509Certificate(pemRepresentation: text)
    _ = try? P256PrivateKey(pemRepresentation: text)
    _ = try? Base64URL.decode(text)
    _ = try? JWSInspection.inspect(text, trusting: nil)
    return 0
}
