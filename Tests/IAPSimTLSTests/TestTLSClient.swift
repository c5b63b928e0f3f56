import IAPSimCrypto

@testable import IAPSimTLS

/// A minimal TLS 1.3 client written for these tests only: it builds ClientHellos with any
/// offer (so refusals can be provoked), follows ServerHello or HelloRetryRequest, checks the
/// server's CertificateVerify signature and Finished, and then seals and opens records, so the
/// engine can be driven in memory with nothing but bytes.
struct TestTLSClient {
    struct Offer {
        var versions: [UInt16] = [0x0304]
        var suites: [UInt16] = [0x1301]
        var groups: [UInt16] = [0x001D, 0x0017]
        var shareGroups: [UInt16] = [0x001D]
        var signatureAlgorithms: [UInt16] = [0x0403, 0x0804]
        var serverName: String? = "api.storekit.itunes.apple.com"
        var applicationProtocols: [String]? = ["http/1.1"]
        var sessionID = [UInt8](repeating: 0xAB, count: 32)
        var extraExtensions: [(UInt16, [UInt8])] = []
    }

    struct Received {
        var application: [UInt8] = []
        var alerts: [UInt8] = []
        var handshakeTypes: [UInt8] = []
    }

    var offer: Offer
    let x25519Key = TLSServerConfiguration.systemRandomBytes(32)
    let p256Key = (try? P256PrivateKey.generate())!
    var transcript = SHA256()
    var firstHello: [UInt8] = []
    var retryGroup: UInt16?
    var read: TLSRecordProtection?
    var write: TLSRecordProtection?
    var handshakeSecret: [UInt8] = []
    var clientHandshakeSecret: [UInt8] = []
    var serverHandshakeSecret: [UInt8] = []
    var clientApplicationSecret: [UInt8] = []
    var serverApplicationSecret: [UInt8] = []
    var leafKey: P256PublicKey?
    var selectedProtocol: String?
    var acknowledgedServerName = false
    var serverFinishedVerified = false
    var certificateVerified = false

    init(offer: Offer = Offer()) {
        self.offer = offer
    }

    /// A record of `type` around `body`.
    static func record(_ type: UInt8, _ body: [UInt8], version: UInt16 = 0x0303) -> [UInt8] {
        var bytes = [type]
        bytes.appendUInt16(version)
        bytes.appendUInt16(UInt16(body.count))
        return bytes + body
    }

    func share(for group: UInt16) -> [UInt8] {
        switch group {
        case 0x001D: return (try? X25519.publicKey(privateKey: x25519Key)) ?? []
        case 0x0017: return p256Key.publicKey.x963Representation
        default: return [UInt8](repeating: 0x42, count: 97)
        }
    }

    /// The ClientHello message for the offer (shares for `shareGroups`).
    func helloMessage(shareGroups: [UInt16]) -> [UInt8] {
        TLSServerMessages.message(.clientHello) { body in
            body.appendUInt16(0x0303)
            body += [UInt8](repeating: 0x11, count: 32)
            body.appendVector(lengthBytes: 1) { $0 += offer.sessionID }
            body.appendVector(lengthBytes: 2) { list in for value in offer.suites { list.appendUInt16(value) } }
            body += [1, 0]
            body.appendVector(lengthBytes: 2) { extensions in
                func add(_ type: UInt16, _ data: (inout [UInt8]) -> Void) {
                    extensions.appendUInt16(type)
                    extensions.appendVector(lengthBytes: 2, data)
                }
                if let name = offer.serverName {
                    add(0) {
                        $0.appendVector(lengthBytes: 2) {
                            $0.append(0)
                            $0.appendVector(lengthBytes: 2) { $0 += Array(name.utf8) }
                        }
                    }
                }
                if !offer.groups.isEmpty {
                    add(10) { data in
                        data.appendVector(lengthBytes: 2) { list in
                            for value in offer.groups { list.appendUInt16(value) }
                        }
                    }
                }
                if !offer.signatureAlgorithms.isEmpty {
                    add(13) { data in
                        data.appendVector(lengthBytes: 2) { list in
                            for value in offer.signatureAlgorithms { list.appendUInt16(value) }
                        }
                    }
                }
                if let protocols = offer.applicationProtocols {
                    add(16) { data in
                        data.appendVector(lengthBytes: 2) { list in
                            for name in protocols { list.appendVector(lengthBytes: 1) { $0 += Array(name.utf8) } }
                        }
                    }
                }
                if !offer.versions.isEmpty {
                    add(43) { data in
                        data.appendVector(lengthBytes: 1) { list in
                            for value in offer.versions { list.appendUInt16(value) }
                        }
                    }
                }
                if !shareGroups.isEmpty {
                    add(51) { data in
                        data.appendVector(lengthBytes: 2) { list in
                            for group in shareGroups {
                                list.appendUInt16(group)
                                list.appendVector(lengthBytes: 2) { $0 += share(for: group) }
                            }
                        }
                    }
                }
                for (type, data) in offer.extraExtensions { add(type) { $0 += data } }
            }
        }
    }

    /// The first ClientHello, as a record.
    mutating func hello() -> [UInt8] {
        firstHello = helloMessage(shareGroups: offer.shareGroups)
        transcript.update(firstHello)
        return Self.record(22, firstHello, version: 0x0301)
    }

    /// The ClientHello answering a HelloRetryRequest.
    mutating func secondHello() -> [UInt8] {
        let message = helloMessage(shareGroups: [retryGroup ?? 0])
        transcript.update(message)
        return Self.record(22, message)
    }

    /// Reads everything the server sent (whole records only).
    mutating func receive(_ bytes: [UInt8]) throws -> Received {
        var received = Received()
        var offset = 0
        while bytes.count - offset >= 5 {
            let header = Array(bytes[offset..<(offset + 5)])
            let length = Int(header[3]) << 8 | Int(header[4])
            guard bytes.count - offset - 5 >= length else { throw TLSFailure(.decodeError, "a partial record") }
            var body = Array(bytes[(offset + 5)..<(offset + 5 + length)])
            offset += 5 + length
            switch header[0] {
            case 20: continue
            case 21: received.alerts += body
            case 22: try handshake(body, into: &received)
            default:
                guard var protection = read else { throw TLSFailure(.unexpectedMessage, "no keys") }
                let opened = try protection.open(&body, count: body.count, header: header)
                read = protection
                let content = Array(body[0..<opened.length])
                switch opened.type {
                case 21: received.alerts += content
                case 22: try handshake(content, into: &received)
                default: received.application += content
                }
            }
        }
        return received
    }

    private mutating func handshake(_ content: [UInt8], into received: inout Received) throws {
        var reader = TLSByteReader(content)
        while !reader.isAtEnd {
            let type = try reader.readUInt8()
            let length = try reader.readUInt24()
            let body = Array(try reader.readBytes(length))
            var message = [type]
            message.appendUInt24(length)
            message += body
            received.handshakeTypes.append(type)
            try process(type, body: body, message: message)
        }
    }

    private mutating func process(_ type: UInt8, body: [UInt8], message: [UInt8]) throws {
        var reader = TLSByteReader(body)
        switch type {
        case 2:
            _ = try reader.readUInt16()
            let random = Array(try reader.readBytes(32))
            _ = try reader.readVector8()
            _ = try reader.readUInt16()
            _ = try reader.readUInt8()
            var extensions = try reader.readVector16()
            var group: UInt16 = 0
            var serverShare: [UInt8] = []
            while !extensions.isAtEnd {
                let extensionType = try extensions.readUInt16()
                var data = try extensions.readVector16()
                if extensionType == 51 {
                    group = try data.readUInt16()
                    if !data.isAtEnd {
                        var share = try data.readVector16()
                        serverShare = Array(share.readRest())
                    }
                }
            }
            if random == TLSServerMessages.helloRetryRandom {
                retryGroup = group
                transcript = SHA256()
                transcript.update(TLSServerMessages.messageHash(of: firstHello))
                transcript.update(message)
                return
            }
            transcript.update(message)
            let secret =
                group == 0x001D
                ? try X25519.sharedSecret(privateKey: x25519Key, peerPublicKey: serverShare)
                : try p256Key.sharedSecret(with: P256PublicKey(x963Representation: serverShare))
            handshakeSecret = TLSKeySchedule.handshakeSecret(sharedSecret: secret)
            let hash = transcript.finalize()
            clientHandshakeSecret = TLSKeySchedule.deriveSecret(
                handshakeSecret, label: "c hs traffic", transcriptHash: hash)
            serverHandshakeSecret = TLSKeySchedule.deriveSecret(
                handshakeSecret, label: "s hs traffic", transcriptHash: hash)
            read = TLSRecordProtection(secret: serverHandshakeSecret)
            write = TLSRecordProtection(secret: clientHandshakeSecret)
        case 8:
            var extensions = try reader.readVector16()
            while !extensions.isAtEnd {
                let extensionType = try extensions.readUInt16()
                var data = try extensions.readVector16()
                if extensionType == 0 { acknowledgedServerName = true }
                if extensionType == 16 {
                    var list = try data.readVector16()
                    var name = try list.readVector8()
                    selectedProtocol = String(decoding: name.readRest(), as: UTF8.self)
                }
            }
            transcript.update(message)
        case 11:
            _ = try reader.readVector8()
            var list = try TLSByteReader(reader.readBytes(try reader.readUInt24()))
            let leaf = try X509Certificate(derRepresentation: list.readBytes(try list.readUInt24()))
            leafKey = try leaf.publicKey()
            transcript.update(message)
        case 15:
            let scheme = try reader.readUInt16()
            var signatureField = try reader.readVector16()
            let signature = try ECDSASignature(derRepresentation: signatureField.readRest())
            let content = TLSServerMessages.certificateVerifyContent(transcriptHash: transcript.finalize())
            certificateVerified = scheme == 0x0403 && leafKey?.isValidSignature(signature, for: content) == true
            transcript.update(message)
        case 20:
            let expected = TLSKeySchedule.finishedVerifyData(
                secret: serverHandshakeSecret, transcriptHash: transcript.finalize())
            serverFinishedVerified = Array(body) == expected
            transcript.update(message)
            let master = TLSKeySchedule.masterSecret(handshakeSecret: handshakeSecret)
            let hash = transcript.finalize()
            clientApplicationSecret = TLSKeySchedule.deriveSecret(master, label: "c ap traffic", transcriptHash: hash)
            serverApplicationSecret = TLSKeySchedule.deriveSecret(master, label: "s ap traffic", transcriptHash: hash)
            read = TLSRecordProtection(secret: serverApplicationSecret)
        case 24:
            serverApplicationSecret = TLSKeySchedule.nextTrafficSecret(serverApplicationSecret)
            read = TLSRecordProtection(secret: serverApplicationSecret)
        default:
            throw TLSFailure(.unexpectedMessage, "the test client does not expect message \(type)")
        }
    }

    /// The client's Finished (protected); `corrupted` flips a bit of verify_data. Later
    /// records use the application keys.
    mutating func finished(corrupted: Bool = false) -> [UInt8] {
        var verify = TLSKeySchedule.finishedVerifyData(
            secret: clientHandshakeSecret, transcriptHash: transcript.finalize())
        if corrupted { verify[0] ^= 1 }
        var output = [UInt8]()
        write?.seal(TLSServerMessages.finished(verifyData: verify), type: .handshake, into: &output)
        write = TLSRecordProtection(secret: clientApplicationSecret)
        return output
    }

    /// A protected record of any inner type.
    mutating func seal(_ content: [UInt8], type: TLSContentType) -> [UInt8] {
        var output = [UInt8]()
        write?.seal(content, type: type, into: &output)
        return output
    }

    /// KeyUpdate, after which this client writes with its next secret.
    mutating func keyUpdate(requested: Bool) -> [UInt8] {
        let record = seal(TLSServerMessages.keyUpdate(requestsUpdate: requested), type: .handshake)
        clientApplicationSecret = TLSKeySchedule.nextTrafficSecret(clientApplicationSecret)
        write = TLSRecordProtection(secret: clientApplicationSecret)
        return record
    }
}
