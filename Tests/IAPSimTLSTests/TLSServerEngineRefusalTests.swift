import IAPSimCrypto
import Testing

@testable import IAPSimTLS

/// Every malformed, unexpected or unacceptable input ends the connection with RFC 8446's
/// alert, sent in the clear before the handshake keys exist and protected after.
@Suite("TLS server engine refusals")
struct TLSServerEngineRefusalTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    /// The alert a fresh engine answers `bytes` with, and that it sent exactly one plaintext alert.
    func plaintextAlert(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> TLSAlert? {
        var engine = TLSServerEngine(configuration: pki.configuration())
        let output = engine.receive(bytes)
        guard case .alertSent(let alert, _) = output.error else { return nil }
        #expect(output.outgoing == [21, 3, 3, 0, 2, 2, alert.rawValue], sourceLocation: sourceLocation)
        #expect(engine.isFailed, sourceLocation: sourceLocation)
        var client = TestTLSClient()
        #expect(engine.receive(client.hello()).outgoing.isEmpty, "a failed engine ignores input")
        return alert
    }

    func hello(_ change: (inout TestTLSClient.Offer) -> Void) -> [UInt8] {
        var offer = TestTLSClient.Offer()
        change(&offer)
        var client = TestTLSClient(offer: offer)
        return client.hello()
    }

    @Test("a TLS 1.2-only ClientHello (no supported_versions) is protocol_version")
    func tls12() {
        #expect(plaintextAlert(hello { $0.versions = [] }) == .protocolVersion)
        #expect(plaintextAlert(hello { $0.versions = [0x0303, 0x0302] }) == .protocolVersion)
    }

    @Test("offers this server cannot meet are handshake_failure, missing_extension or their own alert")
    func unacceptableOffers() {
        #expect(plaintextAlert(hello { $0.suites = [0x1302, 0x1303] }) == .handshakeFailure)
        #expect(plaintextAlert(hello { $0.signatureAlgorithms = [0x0804] }) == .handshakeFailure)
        #expect(plaintextAlert(hello { $0.signatureAlgorithms = [] }) == .missingExtension)
        #expect(
            plaintextAlert(
                hello {
                    $0.groups = [0x0018]
                    $0.shareGroups = [0x0018]
                }) == .handshakeFailure)
        // A PSK-only ClientHello: no key_share, no supported_groups.
        #expect(
            plaintextAlert(
                hello {
                    $0.groups = []
                    $0.shareGroups = []
                }) == .missingExtension)
        #expect(plaintextAlert(hello { $0.serverName = "www.example.com" }) == .unrecognizedName)
        #expect(plaintextAlert(hello { $0.applicationProtocols = ["h2"] }) == .noApplicationProtocol)
    }

    @Test("inconsistent or malformed extensions are illegal_parameter or decode_error")
    func malformedExtensions() {
        // A share for a group missing from supported_groups.
        #expect(
            plaintextAlert(
                hello {
                    $0.groups = [0x0017]
                    $0.shareGroups = [0x001D]
                }) == .illegalParameter)
        #expect(plaintextAlert(hello { $0.shareGroups = [0x001D, 0x001D] }) == .illegalParameter)
        #expect(plaintextAlert(hello { $0.extraExtensions = [(43, [2, 3, 4])] }) == .illegalParameter)
        // pre_shared_key must be last.
        #expect(plaintextAlert(hello { $0.extraExtensions = [(41, []), (0xFF01, [0])] }) == .illegalParameter)
        #expect(plaintextAlert(hello { $0.applicationProtocols = [""] }) == .decodeError)
        #expect(plaintextAlert(hello { $0.serverName = "bad name" }) == .illegalParameter)
        // An extension this server does not know is skipped, as RFC 8446 §4.2 requires.
        #expect(plaintextAlert(hello { $0.extraExtensions = [(0xFF01, [0, 5])] }) == nil)
        #expect(plaintextAlert(hello { $0.sessionID = [UInt8](repeating: 1, count: 33) }) == .illegalParameter)
    }

    @Test("key shares that are not points are illegal_parameter")
    func badShares() {
        var offer = TestTLSClient.Offer()
        offer.shareGroups = [0x0017]
        var client = TestTLSClient(offer: offer)
        var record = client.hello()
        // Flip the last byte of the P-256 point's y: off the curve.
        let start = record.indices.first { record[$0] == 0x04 && record[$0 - 1] == 65 && record[$0 - 2] == 0 }!
        record[start + 64] ^= 1
        #expect(plaintextAlert(record) == .illegalParameter)
        // An all-zero x25519 share is a low-order point.
        let zero = TestTLSClient(offer: TestTLSClient.Offer())
        var message = zero.helloMessage(shareGroups: [0x001D])
        let share = zero.share(for: 0x001D)
        let at = message.indices.first { Array(message[$0..<min($0 + 32, message.count)]) == share }!
        message.replaceSubrange(at..<(at + 32), with: [UInt8](repeating: 0, count: 32))
        #expect(plaintextAlert(TestTLSClient.record(22, message)) == .illegalParameter)
    }

    @Test("records: oversized is record_overflow, garbage is unexpected_message, truncated waits")
    func records() {
        #expect(plaintextAlert([22, 3, 1, 0x40, 0x01] + [UInt8](repeating: 0, count: 10)) == .recordOverflow)
        #expect(plaintextAlert([23, 3, 3, 0x41, 0x01]) == .recordOverflow)
        #expect(plaintextAlert(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) == .unexpectedMessage)
        #expect(plaintextAlert([0x80, 0x2E, 0x01, 0x03, 0x01]) == .unexpectedMessage)
        #expect(plaintextAlert([22, 2, 0, 0, 4, 1, 0, 0, 0]) == .decodeError)
        #expect(plaintextAlert([23, 3, 3, 0, 4, 1, 2, 3, 4]) == .unexpectedMessage)
        #expect(plaintextAlert([21, 3, 3, 0, 3, 2, 40, 0]) == .decodeError)
        #expect(plaintextAlert([22, 3, 1, 0, 0]) == .unexpectedMessage)
        #expect(plaintextAlert([22, 3, 1, 0, 4, 2, 0, 0, 0]) == .unexpectedMessage, "a ServerHello from the client")
        // A handshake message longer than the 64 KiB limit is refused from its header alone.
        #expect(plaintextAlert([22, 3, 1, 0, 4, 1, 1, 0, 1]) == .decodeError)
        // Half a ClientHello: no answer yet, no error.
        var engine = TLSServerEngine(configuration: pki.configuration())
        let whole = TestTLSClient().helloMessage(shareGroups: [0x001D])
        let output = engine.receive(TestTLSClient.record(22, whole).prefix(100))
        #expect(output.outgoing.isEmpty && output.error == nil && !engine.isFailed)
        // A ClientHello in two records is reassembled.
        var split = TLSServerEngine(configuration: pki.configuration())
        let first = split.receive(TestTLSClient.record(22, Array(whole.prefix(50))))
        let second = split.receive(TestTLSClient.record(22, Array(whole.dropFirst(50))))
        #expect(first.outgoing.isEmpty && second.error == nil && second.outgoing.count > 500)
    }

    @Test("a fatal alert from the client is reported")
    func clientAlert() {
        var engine = TLSServerEngine(configuration: pki.configuration())
        let output = engine.receive([21, 3, 3, 0, 2, 2, 48])
        #expect(output.error == .alertReceived(TLSAlert(rawValue: 48)) && output.outgoing.isEmpty)
    }

    /// After the server's flight the engine writes under its application keys, so the
    /// client reads the alert with those.
    @Test("after the flight: a bad Finished is decrypt_error, a tampered record bad_record_mac")
    func protectedRefusals() throws {
        func started() throws -> (TLSServerEngine, TestTLSClient) {
            var engine = TLSServerEngine(configuration: pki.configuration())
            var client = TestTLSClient()
            _ = try client.receive(engine.receive(client.hello()).outgoing)
            return (engine, client)
        }
        var (engine, client) = try started()
        var output = engine.receive(client.finished(corrupted: true))
        #expect(output.error == .alertSent(.decryptError, reason: "the client's Finished does not verify"))
        #expect(try client.receive(output.outgoing).alerts == [2, TLSAlert.decryptError.rawValue])

        (engine, client) = try started()
        var record = client.finished()
        record[10] ^= 0x40
        output = engine.receive(record)
        #expect(output.error == .alertSent(.badRecordMAC, reason: "a record did not authenticate"))

        (engine, client) = try started()
        output = engine.receive(client.seal([1, 2, 3], type: .applicationData))
        #expect(output.error == .alertSent(.unexpectedMessage, reason: "application data before the client's Finished"))

        (engine, client) = try started()
        output = engine.receive(client.seal([20, 0, 0, 1, 0], type: .handshake))
        #expect(output.error == .alertSent(.decodeError, reason: "the client's Finished is 1 bytes, not 32"))

        (engine, client) = try started()
        output = engine.receive(client.seal(TLSServerMessages.message(.clientHello) { $0 += [1] }, type: .handshake))
        guard case .alertSent(.unexpectedMessage, _) = output.error else {
            Issue.record("a second ClientHello after the flight: \(String(describing: output.error))")
            return
        }
    }

    @Test("after the handshake: a malformed KeyUpdate and a plaintext handshake record are refused")
    func postHandshake() throws {
        var engine = TLSServerEngine(configuration: pki.configuration())
        var client = TestTLSClient()
        _ = try client.receive(engine.receive(client.hello()).outgoing)
        _ = engine.receive(client.finished())
        #expect(engine.isHandshakeComplete)
        let output = engine.receive(client.seal([24, 0, 0, 1, 7], type: .handshake))
        #expect(output.error == .alertSent(.illegalParameter, reason: "KeyUpdate request 7 is undefined"))
        var other = TLSServerEngine(configuration: pki.configuration())
        var second = TestTLSClient()
        _ = try second.receive(other.receive(second.hello()).outgoing)
        _ = other.receive(second.finished())
        #expect(other.receive(TestTLSClient.record(22, [24, 0, 0, 1, 0])).error != nil)
    }

    /// A bounded sweep of arbitrary and mutated input: the engine must answer each with an
    /// alert, more waiting, or nothing, and never trap (the fuzz target runs this at length).
    @Test("random and mutated input never traps")
    func robustness() {
        var generator = SystemRandomNumberGenerator()
        let valid = TestTLSClient.record(22, TestTLSClient().helloMessage(shareGroups: [0x001D, 0x0017]))
        for round in 0..<300 {
            var input: [UInt8]
            if round % 2 == 0 {
                input = (0..<Int.random(in: 0..<600, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                input = valid
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    input[Int.random(in: 0..<input.count, using: &generator)] ^= UInt8.random(
                        in: 1...255, using: &generator)
                }
            }
            var engine = TLSServerEngine(configuration: pki.configuration())
            let output = engine.receive(input)
            if output.error != nil { #expect(engine.isFailed && !output.outgoing.isEmpty) }
        }
    }
}
