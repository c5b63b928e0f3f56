import IAPSimCrypto

/// The handshake messages a TLS 1.3 server sends (RFC 8446 §4), each with its four-byte
/// header, ready for the transcript and the record layer.
enum TLSServerMessages {
    /// TLS_AES_128_GCM_SHA256, the one suite served.
    static let cipherSuite: UInt16 = 0x1301
    /// ecdsa_secp256r1_sha256, the one signature scheme served.
    static let signatureScheme: UInt16 = 0x0403
    /// The ServerHello random that marks a HelloRetryRequest: SHA-256("HelloRetryRequest").
    static let helloRetryRandom = SHA256.hash(Array("HelloRetryRequest".utf8))

    enum MessageType: UInt8 {
        case clientHello = 1
        case serverHello = 2
        case newSessionTicket = 4
        case endOfEarlyData = 5
        case encryptedExtensions = 8
        case certificate = 11
        case certificateRequest = 13
        case certificateVerify = 15
        case finished = 20
        case keyUpdate = 24
        case messageHash = 254
    }

    /// A message: type, 24-bit length, body.
    static func message(_ type: MessageType, _ body: (inout [UInt8]) -> Void) -> [UInt8] {
        var bytes = [type.rawValue]
        bytes.appendVector(lengthBytes: 3, body)
        return bytes
    }

    /// ServerHello selecting TLS 1.3 and the suite, with the server's key share; key_share
    /// comes before supported_versions, as in RFC 8448's traces.
    static func serverHello(random: [UInt8], sessionID: [UInt8], group: TLSNamedGroup, share: [UInt8]) -> [UInt8] {
        hello(random: random, sessionID: sessionID) { extensions in
            extensions.appendUInt16(51)
            extensions.appendVector(lengthBytes: 2) {
                $0.appendUInt16(group.rawValue)
                $0.appendVector(lengthBytes: 2) { $0.append(contentsOf: share) }
            }
        }
    }

    /// HelloRetryRequest: a ServerHello with the special random, naming the group to retry with.
    static func helloRetryRequest(sessionID: [UInt8], group: TLSNamedGroup) -> [UInt8] {
        hello(random: helloRetryRandom, sessionID: sessionID) { extensions in
            extensions.appendUInt16(51)
            extensions.appendVector(lengthBytes: 2) { $0.appendUInt16(group.rawValue) }
        }
    }

    private static func hello(random: [UInt8], sessionID: [UInt8], keyShare: (inout [UInt8]) -> Void) -> [UInt8] {
        message(.serverHello) { body in
            body.appendUInt16(0x0303)
            body.append(contentsOf: random)
            body.appendVector(lengthBytes: 1) { $0.append(contentsOf: sessionID) }
            body.appendUInt16(cipherSuite)
            body.append(0)
            body.appendVector(lengthBytes: 2) { extensions in
                keyShare(&extensions)
                extensions.appendUInt16(43)
                extensions.appendVector(lengthBytes: 2) { $0.appendUInt16(0x0304) }
            }
        }
    }

    /// The transcript's stand-in for the first ClientHello after a HelloRetryRequest (§4.4.1).
    static func messageHash(of clientHello: [UInt8]) -> [UInt8] {
        message(.messageHash) { $0.append(contentsOf: SHA256.hash(clientHello)) }
    }

    /// EncryptedExtensions: the chosen ALPN protocol, and an empty server_name when the
    /// certificate was chosen by the client's name (RFC 6066 §3).
    static func encryptedExtensions(applicationProtocol: String?, acknowledgesServerName: Bool) -> [UInt8] {
        message(.encryptedExtensions) { body in
            body.appendVector(lengthBytes: 2) { extensions in
                if acknowledgesServerName {
                    extensions.appendUInt16(0)
                    extensions.appendUInt16(0)
                }
                if let applicationProtocol {
                    extensions.appendUInt16(16)
                    extensions.appendVector(lengthBytes: 2) { list in
                        list.appendVector(lengthBytes: 2) { names in
                            names.appendVector(lengthBytes: 1) {
                                $0.append(contentsOf: Array(applicationProtocol.utf8))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Certificate: an empty request context and the DER chain, leaf first, no extensions.
    static func certificate(chain: [[UInt8]]) -> [UInt8] {
        message(.certificate) { body in
            body.append(0)
            body.appendVector(lengthBytes: 3) { list in
                for certificate in chain {
                    list.appendVector(lengthBytes: 3) { $0.append(contentsOf: certificate) }
                    list.appendUInt16(0)
                }
            }
        }
    }

    /// The bytes a server's CertificateVerify signs (§4.4.3): 64 spaces, the context string,
    /// a zero byte, and the transcript hash through Certificate.
    static func certificateVerifyContent(transcriptHash: [UInt8]) -> [UInt8] {
        [UInt8](repeating: 0x20, count: 64) + Array("TLS 1.3, server CertificateVerify".utf8) + [0] + transcriptHash
    }

    /// CertificateVerify with an ECDSA P-256 / SHA-256 signature in DER.
    static func certificateVerify(transcriptHash: [UInt8], key: P256PrivateKey) -> [UInt8] {
        let signature = key.signature(for: certificateVerifyContent(transcriptHash: transcriptHash)).derRepresentation
        return message(.certificateVerify) { body in
            body.appendUInt16(signatureScheme)
            body.appendVector(lengthBytes: 2) { $0.append(contentsOf: signature) }
        }
    }

    /// Finished carrying `verifyData`.
    static func finished(verifyData: [UInt8]) -> [UInt8] {
        message(.finished) { $0.append(contentsOf: verifyData) }
    }

    /// KeyUpdate; `requestsUpdate` asks the peer to update its keys too.
    static func keyUpdate(requestsUpdate: Bool) -> [UInt8] {
        message(.keyUpdate) { $0.append(requestsUpdate ? 1 : 0) }
    }
}
