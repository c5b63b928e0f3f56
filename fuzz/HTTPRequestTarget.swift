import Foundation
import IAPSimHTTP

// libFuzzer target: the HTTP request parser. The first byte picks the limits (small ones
// when its high bit is set, to reach 413 and 431) and the size of the pieces the rest is fed
// in; the rest is what a client sent. Besides never trapping, hanging or leaking, the parser
// must see the same requests and the same error whether the bytes come at once or in
// pieces: a difference would mean its incremental state loses or misreads bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let control = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let limits =
        control & 0x80 != 0
        ? HTTPRequestParser.Limits(maxHeadBytes: 256, maxBodyBytes: 64) : HTTPRequestParser.Limits()
    let pieceSize = Int(control & 0x7F) + 1
    let whole = outcomes([bytes[...]], limits: limits)
    let pieces = stride(from: 0, to: bytes.count, by: pieceSize).map { bytes[$0..<min($0 + pieceSize, bytes.count)] }
    let inPieces = outcomes(pieces, limits: limits)
    if whole != inPieces {
        fatalError("fed at once: \(whole)\nfed in pieces of \(pieceSize): \(inPieces)")
    }
    _ = try? HTTPRequest(method: "OPTIONS", target: String(decoding: bytes.prefix(4096), as: UTF8.self))
    return 0
}

/// What the parser makes of `pieces` fed one after another: each request, summarised, then
/// the error or whether a partial request is left.
private func outcomes(_ pieces: [ArraySlice<UInt8>], limits: HTTPRequestParser.Limits) -> [String] {
    var parser = HTTPRequestParser(limits: limits)
    var results: [String] = []
    for piece in pieces {
        parser.append(piece)
        do {
            while let request = try parser.nextRequest() {
                results.append(summary(request))
            }
        } catch {
            results.append("error \(error.status.code): \(error.errorDescription ?? "")")
            return results
        }
    }
    results.append(parser.hasPartialRequest ? "partial" : "idle")
    return results
}

/// Every field of `request`, and its response on the wire (whose serialization must not
/// trap on whatever header values came in).
private func summary(_ request: HTTPRequest) -> String {
    let response = HTTPResponse(status: 200, headers: request.headers, body: request.body)
    let wire = response.serialized(closing: !request.keepAlive, headOnly: request.method == "HEAD")
    let headers = request.headers.map { "\($0.name)=\($0.value)" }
    let query = request.query.map { "\($0.name)=\($0.value)" }
    return "\(request.method) \(request.target) \(request.path) \(request.pathComponents) \(query) "
        + "\(request.version) \(headers) \(request.body) \(wire.count)"
}
