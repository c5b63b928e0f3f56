import IAPSimCrypto
import Testing

@testable import IAPSimTLS

/// RFC 8448 §3, "Simple 1-RTT Handshake": every secret, key and record the trace prints that
/// does not depend on its RSA signature, reproduced by the key schedule, the record layer and
/// the engine itself.
@Suite("RFC 8448 simple 1-RTT handshake")
struct RFC8448Tests {
    let trace: TraceFixture

    init() throws {
        trace = try TraceFixture()
    }

    @Test("X25519: the server's public key and the shared secret, from either side")
    func keyExchange() throws {
        #expect(try X25519.publicKey(privateKey: trace.bytes("serverPrivateKey")) == trace.bytes("serverPublicKey"))
        #expect(try X25519.publicKey(privateKey: trace.bytes("clientPrivateKey")) == trace.bytes("clientPublicKey"))
        let shared = try trace.bytes("sharedSecret")
        #expect(
            try X25519.sharedSecret(
                privateKey: trace.bytes("serverPrivateKey"), peerPublicKey: trace.bytes("clientPublicKey"))
                == shared)
        #expect(
            try X25519.sharedSecret(
                privateKey: trace.bytes("clientPrivateKey"), peerPublicKey: trace.bytes("serverPublicKey"))
                == shared)
    }

    @Test("the key schedule: early, handshake and master secrets, traffic secrets, keys and IVs")
    func keySchedule() throws {
        #expect(TLSKeySchedule.earlySecret == (try trace.bytes("earlySecret")))
        #expect(
            TLSKeySchedule.deriveSecret(
                TLSKeySchedule.earlySecret, label: "derived", transcriptHash: TLSKeySchedule.emptyHash)
                == (try trace.bytes("derivedForHandshake")))
        let handshakeSecret = TLSKeySchedule.handshakeSecret(sharedSecret: try trace.bytes("sharedSecret"))
        #expect(handshakeSecret == (try trace.bytes("handshakeSecret")))
        let helloHash = SHA256.hash(try trace.bytes("clientHello") + trace.bytes("serverHello"))
        #expect(helloHash == (try trace.bytes("helloHash")))
        let clientHandshake = TLSKeySchedule.deriveSecret(
            handshakeSecret, label: "c hs traffic", transcriptHash: helloHash)
        let serverHandshake = TLSKeySchedule.deriveSecret(
            handshakeSecret, label: "s hs traffic", transcriptHash: helloHash)
        #expect(clientHandshake == (try trace.bytes("clientHandshakeTrafficSecret")))
        #expect(serverHandshake == (try trace.bytes("serverHandshakeTrafficSecret")))
        #expect(
            TLSKeySchedule.deriveSecret(handshakeSecret, label: "derived", transcriptHash: TLSKeySchedule.emptyHash)
                == (try trace.bytes("derivedForMaster")))
        let master = TLSKeySchedule.masterSecret(handshakeSecret: handshakeSecret)
        #expect(master == (try trace.bytes("masterSecret")))

        let serverKeys = TLSKeySchedule.trafficKeys(secret: serverHandshake)
        #expect(serverKeys.key == (try trace.bytes("serverHandshakeKey")))
        #expect(serverKeys.iv == (try trace.bytes("serverHandshakeIV")))
        let clientKeys = TLSKeySchedule.trafficKeys(secret: clientHandshake)
        #expect(clientKeys.key == (try trace.bytes("clientHandshakeKey")))
        #expect(clientKeys.iv == (try trace.bytes("clientHandshakeIV")))

        let finishedHash = SHA256.hash(
            try trace.bytes("clientHello") + trace.bytes("serverHello") + trace.bytes("encryptedExtensions")
                + trace.bytes("certificate") + trace.bytes("certificateVerify") + trace.bytes("serverFinished"))
        #expect(finishedHash == (try trace.bytes("serverFinishedHash")))
        let clientApplication = TLSKeySchedule.deriveSecret(master, label: "c ap traffic", transcriptHash: finishedHash)
        let serverApplication = TLSKeySchedule.deriveSecret(master, label: "s ap traffic", transcriptHash: finishedHash)
        #expect(clientApplication == (try trace.bytes("clientApplicationTrafficSecret")))
        #expect(serverApplication == (try trace.bytes("serverApplicationTrafficSecret")))
        let serverApplicationKeys = TLSKeySchedule.trafficKeys(secret: serverApplication)
        #expect(serverApplicationKeys.key == (try trace.bytes("serverApplicationKey")))
        #expect(serverApplicationKeys.iv == (try trace.bytes("serverApplicationIV")))
        let clientApplicationKeys = TLSKeySchedule.trafficKeys(secret: clientApplication)
        #expect(clientApplicationKeys.key == (try trace.bytes("clientApplicationKey")))
        #expect(clientApplicationKeys.iv == (try trace.bytes("clientApplicationIV")))
    }

    @Test("Finished: both finished keys and both verify_data values")
    func finished() throws {
        let serverHandshake = try trace.bytes("serverHandshakeTrafficSecret")
        let clientHandshake = try trace.bytes("clientHandshakeTrafficSecret")
        #expect(TLSKeySchedule.finishedKey(secret: serverHandshake) == (try trace.bytes("serverFinishedKey")))
        #expect(TLSKeySchedule.finishedKey(secret: clientHandshake) == (try trace.bytes("clientFinishedKey")))
        let throughVerify = SHA256.hash(
            try trace.bytes("clientHello") + trace.bytes("serverHello") + trace.bytes("encryptedExtensions")
                + trace.bytes("certificate") + trace.bytes("certificateVerify"))
        #expect(
            TLSServerMessages.finished(
                verifyData: TLSKeySchedule.finishedVerifyData(secret: serverHandshake, transcriptHash: throughVerify))
                == (try trace.bytes("serverFinished")))
        #expect(
            TLSServerMessages.finished(
                verifyData: TLSKeySchedule.finishedVerifyData(
                    secret: clientHandshake, transcriptHash: try trace.bytes("serverFinishedHash")))
                == (try trace.bytes("clientFinished")))
    }

    @Test("records: the server's flight and application data seal byte for byte; the client's open")
    func records() throws {
        var serverHandshake = TLSRecordProtection(
            key: try trace.bytes("serverHandshakeKey"), iv: try trace.bytes("serverHandshakeIV"))
        var flight = [UInt8]()
        serverHandshake.seal(
            try trace.bytes("encryptedExtensions") + trace.bytes("certificate") + trace.bytes("certificateVerify")
                + trace.bytes("serverFinished"), type: .handshake, into: &flight)
        #expect(flight == (try trace.bytes("serverFlightRecord")))

        var clientHandshake = TLSRecordProtection(
            key: try trace.bytes("clientHandshakeKey"), iv: try trace.bytes("clientHandshakeIV"))
        #expect(
            try open(&clientHandshake, trace.bytes("clientFinishedRecord")) == (22, try trace.bytes("clientFinished")))

        var clientApplication = TLSRecordProtection(
            key: try trace.bytes("clientApplicationKey"), iv: try trace.bytes("clientApplicationIV"))
        #expect(
            try open(&clientApplication, trace.bytes("clientApplicationDataRecord"))
                == (23, try trace.bytes("applicationData")))
        #expect(try open(&clientApplication, trace.bytes("clientAlertRecord")) == (21, [1, 0]))

        // The server's application data is its second record under these keys (after a
        // NewSessionTicket this server never sends), its close_notify the third.
        var serverApplication = TLSRecordProtection(
            key: try trace.bytes("serverApplicationKey"), iv: try trace.bytes("serverApplicationIV"))
        var skipped = [UInt8]()
        serverApplication.seal([0], type: .handshake, into: &skipped)
        var data = [UInt8]()
        serverApplication.seal(try trace.bytes("applicationData"), type: .applicationData, into: &data)
        #expect(data == (try trace.bytes("serverApplicationDataRecord")))
        var alert = [UInt8]()
        serverApplication.seal([1, 0], type: .alert, into: &alert)
        #expect(alert == (try trace.bytes("serverAlertRecord")))
    }

    @Test("a record altered in one bit, or opened out of sequence, is bad_record_mac")
    func tampering() throws {
        var record = try trace.bytes("clientFinishedRecord")
        record[20] ^= 1
        var keys = TLSRecordProtection(
            key: try trace.bytes("clientHandshakeKey"), iv: try trace.bytes("clientHandshakeIV"))
        #expect(throws: TLSFailure.self) { try open(&keys, record) }
        var skipped = TLSRecordProtection(
            key: try trace.bytes("clientApplicationKey"), iv: try trace.bytes("clientApplicationIV"))
        #expect(throws: TLSFailure.self) { try open(&skipped, trace.bytes("clientAlertRecord")) }
    }

    /// With the trace's server random and key share fed in as its "random" bytes, the engine's
    /// ServerHello is the trace's byte for byte, and its encrypted flight opens under the
    /// trace's handshake key: the same shared secret, transcript and keys. The flight itself
    /// differs (a P-256 certificate, not the trace's RSA one).
    @Test("the engine answers the trace's ClientHello with the trace's ServerHello and keys")
    func engine() throws {
        let pki = try TestPKI()
        let identity = pki.identity
        let queue = ByteQueue(try trace.bytes("serverRandom") + trace.bytes("serverPrivateKey"))
        let configuration = TLSServerConfiguration(applicationProtocols: ["http/1.1"], randomBytes: queue.take) {
            name in
            name == "server" ? identity : nil
        }
        var engine = TLSServerEngine(configuration: configuration)
        let output = engine.receive(try trace.bytes("clientHelloRecord"))
        #expect(output.error == nil)
        let serverHello = try trace.bytes("serverHelloRecord")
        try #require(output.outgoing.count > serverHello.count + 5)
        #expect(Array(output.outgoing.prefix(serverHello.count)) == serverHello)

        var keys = TLSRecordProtection(
            key: try trace.bytes("serverHandshakeKey"), iv: try trace.bytes("serverHandshakeIV"))
        let (type, flight) = try open(&keys, Array(output.outgoing.dropFirst(serverHello.count)))
        #expect(type == 22)
        var reader = TLSByteReader(flight)
        var transcript = try trace.bytes("clientHello") + serverHello.dropFirst(5)
        var types = [UInt8]()
        var verifyData: [UInt8] = []
        while !reader.isAtEnd {
            let messageType = try reader.readUInt8()
            let body = Array(try reader.readBytes(try reader.readUInt24()))
            types.append(messageType)
            if messageType == 20 {
                verifyData = body
            } else {
                transcript += [messageType, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
            }
        }
        #expect(types == [8, 11, 15, 20])
        let expected = HMACSHA256.authenticationCode(
            for: SHA256.hash(transcript), key: try trace.bytes("serverFinishedKey"))
        #expect(verifyData == expected)
    }

    private func open(_ protection: inout TLSRecordProtection, _ record: [UInt8]) throws -> (UInt8, [UInt8]) {
        var body = Array(record.dropFirst(5))
        let opened = try protection.open(&body, count: body.count, header: Array(record.prefix(5)))
        return (opened.type, Array(body[0..<opened.length]))
    }
}
