import IAPSimCrypto
import Testing

@testable import IAPSimTLS

/// The engine driven in memory by `TestTLSClient`: whole handshakes, data both ways, key
/// updates and closes.
@Suite("TLS server engine")
struct TLSServerEngineTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    /// Runs a client's first flight through a fresh engine and checks the server's.
    func handshake(_ offer: TestTLSClient.Offer) throws -> (TLSServerEngine, TestTLSClient, TLSServerOutput) {
        var engine = TLSServerEngine(configuration: pki.configuration())
        var client = TestTLSClient(offer: offer)
        var output = engine.receive(client.hello())
        #expect(output.error == nil)
        var received = try client.receive(output.outgoing)
        if client.retryGroup != nil {
            output = engine.receive(client.secondHello())
            #expect(output.error == nil)
            received = try client.receive(output.outgoing)
        }
        #expect(received.handshakeTypes.suffix(5) == [2, 8, 11, 15, 20])
        #expect(client.certificateVerified, "the CertificateVerify signature verifies with the leaf's key")
        #expect(client.serverFinishedVerified)
        output = engine.receive(client.finished())
        #expect(output.error == nil)
        return (engine, client, output)
    }

    @Test("a handshake completes with each group's share", arguments: [UInt16(0x001D), 0x0017])
    func completes(group: UInt16) throws {
        var offer = TestTLSClient.Offer()
        offer.shareGroups = [group]
        let (engine, client, output) = try handshake(offer)
        let expected = TLSNegotiation(
            serverName: "api.storekit.itunes.apple.com", applicationProtocol: "http/1.1",
            group: TLSNamedGroup(rawValue: group)!, usedHelloRetryRequest: false)
        #expect(output.events == [.handshakeCompleted(expected)])
        #expect(engine.isHandshakeComplete && engine.negotiation == expected)
        #expect(client.selectedProtocol == "http/1.1" && client.acknowledgedServerName)
    }

    @Test("a share only for an unsupported group gets a HelloRetryRequest, then completes")
    func helloRetry() throws {
        var offer = TestTLSClient.Offer()
        offer.groups = [0x0018, 0x001D]
        offer.shareGroups = [0x0018]
        let (engine, client, _) = try handshake(offer)
        #expect(client.retryGroup == 0x001D)
        #expect(engine.negotiation?.usedHelloRetryRequest == true && engine.negotiation?.group == .x25519)
    }

    @Test("without ALPN or SNI: no ALPN answer, no name acknowledged")
    func noExtensions() throws {
        var offer = TestTLSClient.Offer()
        offer.applicationProtocols = nil
        offer.serverName = nil
        let (engine, client, _) = try handshake(offer)
        #expect(engine.negotiation?.applicationProtocol == nil && client.selectedProtocol == nil)
        #expect(!client.acknowledgedServerName)
    }

    @Test("application data both ways, records over 16 KiB split, close_notify both ways")
    func data() throws {
        var (engine, client, _) = try handshake(TestTLSClient.Offer())
        let request = Array("GET /ping HTTP/1.1\r\nHost: api.storekit.itunes.apple.com\r\n\r\n".utf8)
        var output = engine.receive(client.seal(request, type: .applicationData))
        #expect(output.application == request && output.error == nil)
        let large = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let records = try engine.seal(large)
        #expect(records.count == large.count + 3 * (5 + 17))
        #expect(try client.receive(records).application == large)
        // A zero-length application record is allowed; it delivers nothing.
        output = engine.receive(client.seal([], type: .applicationData))
        #expect(output.application.isEmpty && output.error == nil)
        output = engine.receive(client.seal([1, 0], type: .alert))
        #expect(output.events == [.peerClosed] && engine.isPeerClosed)
        #expect(try client.receive(engine.seal([42])).application == [42], "a half-closed connection still writes")
        let close = engine.closeNotify()
        #expect(try client.receive(close).alerts == [1, 0])
        #expect(throws: TLSError.notConnected) { try engine.seal([1]) }
    }

    @Test("KeyUpdate: the engine reads the client's next keys and answers a request with its own")
    func keyUpdate() throws {
        var (engine, client, _) = try handshake(TestTLSClient.Offer())
        var output = engine.receive(client.keyUpdate(requested: true) + client.seal([7, 8], type: .applicationData))
        #expect(output.error == nil && output.application == [7, 8])
        #expect(output.events == [.keyUpdated(requested: true)])
        #expect(try client.receive(output.outgoing).handshakeTypes == [24])
        #expect(try client.receive(engine.seal([9])).application == [9])
        output = engine.receive(client.keyUpdate(requested: false))
        #expect(output.events == [.keyUpdated(requested: false)] && output.outgoing.isEmpty)
        #expect(engine.receive(client.seal([1], type: .applicationData)).application == [1])
    }

    @Test("middlebox-compatibility change_cipher_spec records are dropped during the handshake")
    func changeCipherSpec() throws {
        var engine = TLSServerEngine(configuration: pki.configuration())
        var client = TestTLSClient()
        var output = engine.receive(client.hello())
        #expect(Array(output.outgoing.suffix(0)).isEmpty)
        _ = try client.receive(output.outgoing)
        output = engine.receive([20, 3, 3, 0, 1, 1] + client.finished())
        #expect(output.error == nil && engine.isHandshakeComplete)
        output = engine.receive([20, 3, 3, 0, 1, 1])
        #expect(output.error == .alertSent(.unexpectedMessage, reason: "an unexpected change_cipher_spec record"))
    }
}
