import IAPSimCrypto

/// A TLS 1.3 server (RFC 8446) as a pure state machine: bytes from the client go in, and
/// records for the client, decrypted application data and events come out. It does no I/O
/// and reads no clock, so it can be driven by a socket (`TLSServerStream`), a test or a fuzzer.
///
/// Hand-written, for test data only. It serves TLS_AES_128_GCM_SHA256 with an ECDSA P-256
/// certificate over x25519 or secp256r1, with HelloRetryRequest, ALPN, SNI, KeyUpdate and
/// close_notify; no resumption, 0-RTT or client certificates. Every input is bounded: records
/// by the protocol's limits, handshake messages by the configuration, and any malformed,
/// unexpected or oversized input ends the connection with the alert RFC 8446 names.
public struct TLSServerEngine {
    enum State {
        case expectingClientHello, expectingSecondClientHello, expectingFinished, connected, failed
    }

    let configuration: TLSServerConfiguration
    var state = State.expectingClientHello
    /// What the handshake settled, once the client's Finished verified.
    public internal(set) var negotiation: TLSNegotiation?
    /// Whether the client sent close_notify.
    public internal(set) var isPeerClosed = false
    /// Whether this side sent close_notify.
    public internal(set) var isWriteClosed = false

    var transcript = SHA256()
    var readProtection: TLSRecordProtection?
    var writeProtection: TLSRecordProtection?
    var clientTrafficSecret: [UInt8] = []
    var serverTrafficSecret: [UInt8] = []
    var clientApplicationSecret: [UInt8] = []
    var expectedClientFinished: [UInt8] = []
    var pendingNegotiation: TLSNegotiation?
    /// The first ClientHello, kept after a HelloRetryRequest to hold the second one to it.
    var firstClientHello: TLSClientHello?
    var retryGroup: TLSNamedGroup?
    var sentChangeCipherSpec = false
    /// Early data is never accepted; when offered, the client's 0-RTT records are skipped,
    /// up to this many bytes (RFC 8446 §4.2.10).
    var earlyDataSkipBudget = 0

    private var inbox: [UInt8] = []
    var handshakeBuffer: [UInt8] = []
    private var recordBody: [UInt8] = []

    /// A connection that has seen nothing yet.
    public init(configuration: TLSServerConfiguration) {
        self.configuration = configuration
    }

    /// Whether application data can flow.
    public var isHandshakeComplete: Bool { state == .connected }
    /// Whether the connection failed (an alert was sent or received); input is then ignored.
    public var isFailed: Bool { state == .failed }

    /// Consumes bytes from the client: records are processed as soon as they are complete,
    /// and an incomplete one waits for the next call.
    public mutating func receive(_ bytes: some Collection<UInt8>) -> TLSServerOutput {
        var output = TLSServerOutput()
        guard state != .failed, !isPeerClosed else { return output }
        inbox.append(contentsOf: bytes)
        do {
            try processRecords(into: &output)
        } catch {
            fail(error, into: &output)
        }
        return output
    }

    /// Protects application data as records of at most 2¹⁴ bytes each.
    /// - Returns: the records to send.
    /// - Throws: `TLSError.notConnected` before the handshake completes or after close.
    public mutating func seal(_ data: some Collection<UInt8>) throws(TLSError) -> [UInt8] {
        guard state == .connected, !isWriteClosed, writeProtection != nil else { throw .notConnected }
        var output = [UInt8]()
        let sealed: Void? = data.withContiguousStorageIfAvailable { buffer in
            seal(UnsafeRawBufferPointer(buffer), into: &output)
        }
        if sealed == nil { Array(data).withUnsafeBytes { seal($0, into: &output) } }
        return output
    }

    private mutating func seal(_ data: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        // Room for every record at once: sealing then appends without reallocating.
        let records = max(1, (data.count + TLSRecordLimits.maximumPlaintext - 1) / TLSRecordLimits.maximumPlaintext)
        output.reserveCapacity(output.count + data.count + records * (TLSRecordLimits.headerByteCount + 17))
        var offset = 0
        repeat {
            let end = min(offset + TLSRecordLimits.maximumPlaintext, data.count)
            writeProtection?.seal(
                UnsafeRawBufferPointer(rebasing: data[offset..<end]), type: .applicationData, into: &output)
            offset = end
        } while offset < data.count
    }

    /// Ends this side of the connection with close_notify (RFC 8446 §6.1).
    /// - Returns: the alert record to send; empty before the handshake keys exist or when
    ///   already closed.
    public mutating func closeNotify() -> [UInt8] {
        guard !isWriteClosed, state != .failed else { return [] }
        isWriteClosed = true
        var output = [UInt8]()
        writeProtection?.seal([1, TLSAlert.closeNotify.rawValue], type: .alert, into: &output)
        return output
    }

    // MARK: - Records

    private mutating func processRecords(into output: inout TLSServerOutput) throws(TLSFailure) {
        var offset = 0
        defer { inbox.removeFirst(offset) }
        while inbox.count - offset >= TLSRecordLimits.headerByteCount, state != .failed, !isPeerClosed {
            guard let type = TLSContentType(rawValue: inbox[offset]) else {
                throw TLSFailure(.unexpectedMessage, "record type \(inbox[offset]) is not a TLS content type")
            }
            guard inbox[offset + 1] == 0x03 else { throw TLSFailure(.decodeError, "the record version is not TLS") }
            let length = Int(inbox[offset + 3]) << 8 | Int(inbox[offset + 4])
            let limit =
                readProtection == nil || type != .applicationData
                ? TLSRecordLimits.maximumPlaintext : TLSRecordLimits.maximumCiphertext
            guard length <= limit else { throw TLSFailure(.recordOverflow, "a record of \(length) bytes is too long") }
            guard inbox.count - offset >= TLSRecordLimits.headerByteCount + length else { break }
            let header = Array(inbox[offset..<(offset + TLSRecordLimits.headerByteCount)])
            let body = (offset + TLSRecordLimits.headerByteCount)..<(offset + TLSRecordLimits.headerByteCount + length)
            offset = body.upperBound
            try processRecord(type, header: header, body: body, into: &output)
        }
    }

    private mutating func processRecord(
        _ type: TLSContentType, header: [UInt8], body: Range<Int>, into output: inout TLSServerOutput
    ) throws(TLSFailure) {
        switch type {
        case .changeCipherSpec:
            // RFC 8446 §5: one 0x01 byte between the first ClientHello and Finished is dropped.
            guard state == .expectingSecondClientHello || state == .expectingFinished, body.count == 1,
                inbox[body.lowerBound] == 1
            else { throw TLSFailure(.unexpectedMessage, "an unexpected change_cipher_spec record") }
        case .alert:
            // Plaintext alerts are read in any state: a client that cannot use the handshake
            // keys says so in the clear.
            try processAlert(Array(inbox[body]), into: &output)
        case .handshake:
            guard readProtection == nil else {
                throw TLSFailure(.unexpectedMessage, "a plaintext handshake record after the keys changed")
            }
            try processHandshake(inbox[body], into: &output)
        case .applicationData:
            guard readProtection != nil else {
                if state == .expectingSecondClientHello, body.count <= earlyDataSkipBudget {
                    earlyDataSkipBudget -= body.count
                    return
                }
                throw TLSFailure(.unexpectedMessage, "application data before the handshake")
            }
            try processProtectedRecord(header: header, body: body, into: &output)
        }
    }

    private mutating func processProtectedRecord(
        header: [UInt8], body: Range<Int>, into output: inout TLSServerOutput
    ) throws(TLSFailure) {
        if recordBody.count < body.count {
            recordBody = [UInt8](repeating: 0, count: TLSRecordLimits.maximumCiphertext)
        }
        recordBody.withUnsafeMutableBytes { target in
            inbox.withUnsafeBytes { source in
                target.baseAddress!.copyMemory(from: source.baseAddress! + body.lowerBound, byteCount: body.count)
            }
        }
        let opened: (type: UInt8, length: Int)
        do {
            opened = try readProtection!.open(&recordBody, count: body.count, header: header)
        } catch {
            // 0-RTT records the client sent under keys this server never made are skipped.
            if state == .expectingFinished, error.alert == .badRecordMAC, body.count <= earlyDataSkipBudget {
                earlyDataSkipBudget -= body.count
                return
            }
            throw error
        }
        switch TLSContentType(rawValue: opened.type) {
        case .handshake:
            try processHandshake(recordBody[0..<opened.length], into: &output)
        case .alert:
            try processAlert(Array(recordBody[0..<opened.length]), into: &output)
        case .applicationData:
            guard state == .connected else {
                throw TLSFailure(.unexpectedMessage, "application data before the client's Finished")
            }
            output.application.append(contentsOf: recordBody[0..<opened.length])
        default:
            throw TLSFailure(.unexpectedMessage, "inner content type \(opened.type) is not allowed")
        }
    }

    private mutating func processAlert(_ body: [UInt8], into output: inout TLSServerOutput) throws(TLSFailure) {
        guard body.count == 2 else { throw TLSFailure(.decodeError, "an alert is \(body.count) bytes, not 2") }
        let alert = TLSAlert(rawValue: body[1])
        switch alert {
        case .closeNotify:
            isPeerClosed = true
            output.events.append(.peerClosed)
        case .userCanceled:
            break  // a warning; close_notify follows
        default:
            state = .failed
            output.error = .alertReceived(alert)
        }
    }

    /// Reassembles handshake messages across records, bounded by the configured size.
    private mutating func processHandshake(_ fragment: ArraySlice<UInt8>, into output: inout TLSServerOutput)
        throws(TLSFailure)
    {
        guard !fragment.isEmpty else { throw TLSFailure(.unexpectedMessage, "an empty handshake record") }
        handshakeBuffer.append(contentsOf: fragment)
        while handshakeBuffer.count >= 4, state != .failed {
            let length = Int(handshakeBuffer[1]) << 16 | Int(handshakeBuffer[2]) << 8 | Int(handshakeBuffer[3])
            guard length <= configuration.maximumHandshakeMessageByteCount else {
                throw TLSFailure(.decodeError, "a handshake message of \(length) bytes is over the limit")
            }
            guard handshakeBuffer.count >= 4 + length else { break }
            let message = Array(handshakeBuffer[0..<(4 + length)])
            handshakeBuffer.removeFirst(4 + length)
            try processHandshakeMessage(message, into: &output)
        }
    }

    /// Sends a fatal alert (protected once this side has keys) and stops.
    private mutating func fail(_ failure: TLSFailure, into output: inout TLSServerOutput) {
        let body: [UInt8] = [2, failure.alert.rawValue]
        if let protection = writeProtection, !isWriteClosed {
            var sealer = protection
            sealer.seal(body, type: .alert, into: &output.outgoing)
        } else {
            output.outgoing += [TLSContentType.alert.rawValue, 0x03, 0x03, 0x00, 0x02] + body
        }
        state = .failed
        output.error = .alertSent(failure.alert, reason: failure.reason)
    }

    /// Appends `bytes` as plaintext records of the given type (ServerHello, HelloRetryRequest).
    static func appendPlaintext(_ bytes: [UInt8], type: TLSContentType, to output: inout [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + TLSRecordLimits.maximumPlaintext, bytes.count)
            output += [type.rawValue, 0x03, 0x03]
            output.appendUInt16(UInt16(end - offset))
            output += bytes[offset..<end]
            offset = end
        }
    }
}
