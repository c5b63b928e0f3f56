import IAPSimCrypto

/// The handshake: ClientHello to ServerHello (or HelloRetryRequest) and the server's flight,
/// the client's Finished, and KeyUpdate afterwards (RFC 8446 §4).
extension TLSServerEngine {
    /// TLS 1.3's version code in supported_versions.
    static let tls13: UInt16 = 0x0304

    mutating func processHandshakeMessage(_ message: [UInt8], into output: inout TLSServerOutput)
        throws(TLSFailure)
    {
        let type = TLSServerMessages.MessageType(rawValue: message[0])
        switch (state, type) {
        case (.expectingClientHello, .clientHello), (.expectingSecondClientHello, .clientHello):
            try processClientHello(message, into: &output)
        case (.expectingFinished, .finished):
            try processFinished(message, into: &output)
        case (.connected, .keyUpdate):
            try processKeyUpdate(message, into: &output)
        default:
            throw TLSFailure(.unexpectedMessage, "handshake message \(message[0]) is not expected now")
        }
    }

    private mutating func processClientHello(_ message: [UInt8], into output: inout TLSServerOutput)
        throws(TLSFailure)
    {
        let hello = try TLSClientHello(body: message[4...])
        guard let versions = hello.supportedVersions else {
            throw TLSFailure(.protocolVersion, "the client offers only TLS 1.2 or older")
        }
        guard versions.contains(Self.tls13) else {
            throw TLSFailure(.protocolVersion, "the client does not offer TLS 1.3")
        }
        guard hello.compressionMethods == [0] else {
            throw TLSFailure(.illegalParameter, "TLS 1.3 allows only the null compression method")
        }
        guard hello.cipherSuites.contains(TLSServerMessages.cipherSuite) else {
            throw TLSFailure(.handshakeFailure, "the client does not offer TLS_AES_128_GCM_SHA256")
        }
        guard let algorithms = hello.signatureAlgorithms else {
            throw TLSFailure(.missingExtension, "the client sent no signature_algorithms")
        }
        guard algorithms.contains(TLSServerMessages.signatureScheme) else {
            throw TLSFailure(.handshakeFailure, "the client does not accept ecdsa_secp256r1_sha256")
        }
        guard let groups = hello.supportedGroups, let shares = hello.keyShares else {
            throw TLSFailure(.missingExtension, "without supported_groups and key_share there is no key exchange")
        }
        var shareGroups = Set<UInt16>()
        for share in shares {
            guard shareGroups.insert(share.group).inserted, groups.contains(share.group) else {
                throw TLSFailure(.illegalParameter, "key share \(share.group) repeats or is not in supported_groups")
            }
        }
        if let retryGroup {
            // §4.1.2: the same ClientHello again, with one share in the group asked for.
            guard let first = firstClientHello, hello.sessionID == first.sessionID,
                hello.cipherSuites == first.cipherSuites, shares.count == 1, shares[0].group == retryGroup.rawValue
            else { throw TLSFailure(.illegalParameter, "the second ClientHello does not answer the retry request") }
            guard !hello.offersEarlyData else {
                throw TLSFailure(.illegalParameter, "early_data after a HelloRetryRequest")
            }
        }
        let offer = TLSNamedGroup.allCases.lazy.compactMap { group in
            shares.first(where: { $0.group == group.rawValue }).map { (group, $0.key) }
        }.first
        guard let (group, peerShare) = offer else {
            guard retryGroup == nil, let group = TLSNamedGroup.allCases.first(where: { groups.contains($0.rawValue) })
            else { throw TLSFailure(.handshakeFailure, "no key-exchange group in common") }
            return requestRetry(hello, message: message, group: group, into: &output)
        }
        guard let identity = configuration.identity(hello.serverName), !identity.certificateChain.isEmpty else {
            throw hello.serverName.map { TLSFailure(.unrecognizedName, "no certificate for \($0)") }
                ?? TLSFailure(.handshakeFailure, "no certificate for a client that names no server")
        }
        var applicationProtocol: String?
        if let offered = hello.applicationProtocols {
            guard let match = configuration.applicationProtocols.first(where: offered.contains) else {
                throw TLSFailure(.noApplicationProtocol, "none of the client's ALPN protocols \(offered) is served")
            }
            applicationProtocol = match
        }
        if retryGroup == nil { earlyDataSkipBudget = hello.offersEarlyData ? TLSRecordLimits.maximumCiphertext * 4 : 0 }

        let random = configuration.randomBytes(32)
        let agreement = try group.agree(peerShare: peerShare, randomBytes: configuration.randomBytes)
        transcript.update(message)
        let serverHello = TLSServerMessages.serverHello(
            random: random, sessionID: hello.sessionID, group: group, share: agreement.share)
        transcript.update(serverHello)
        Self.appendPlaintext(serverHello, type: .handshake, to: &output.outgoing)
        appendCompatibilityChangeCipherSpec(for: hello, to: &output.outgoing)

        let handshakeSecret = TLSKeySchedule.handshakeSecret(sharedSecret: agreement.secret)
        let helloHash = transcript.finalize()
        clientTrafficSecret = TLSKeySchedule.deriveSecret(
            handshakeSecret, label: "c hs traffic", transcriptHash: helloHash)
        let serverHandshakeSecret = TLSKeySchedule.deriveSecret(
            handshakeSecret, label: "s hs traffic", transcriptHash: helloHash)
        readProtection = TLSRecordProtection(secret: clientTrafficSecret)
        writeProtection = TLSRecordProtection(secret: serverHandshakeSecret)
        // §5.1: a handshake message may not span a key change.
        guard handshakeBuffer.isEmpty else {
            throw TLSFailure(.unexpectedMessage, "a handshake message follows the ClientHello in its record")
        }

        var flight = TLSServerMessages.encryptedExtensions(
            applicationProtocol: applicationProtocol, acknowledgesServerName: hello.serverName != nil)
        flight += TLSServerMessages.certificate(chain: identity.certificateChain)
        transcript.update(flight)
        let verify = TLSServerMessages.certificateVerify(
            transcriptHash: transcript.finalize(), key: identity.privateKey)
        transcript.update(verify)
        let finished = TLSServerMessages.finished(
            verifyData: TLSKeySchedule.finishedVerifyData(
                secret: serverHandshakeSecret, transcriptHash: transcript.finalize()))
        transcript.update(finished)
        flight += verify + finished
        var offset = 0
        while offset < flight.count {
            let end = min(offset + TLSRecordLimits.maximumPlaintext, flight.count)
            flight.withUnsafeBytes {
                writeProtection?.seal(
                    UnsafeRawBufferPointer(rebasing: $0[offset..<end]), type: .handshake, into: &output.outgoing)
            }
            offset = end
        }

        let masterSecret = TLSKeySchedule.masterSecret(handshakeSecret: handshakeSecret)
        let serverFinishedHash = transcript.finalize()
        clientApplicationSecret = TLSKeySchedule.deriveSecret(
            masterSecret, label: "c ap traffic", transcriptHash: serverFinishedHash)
        serverTrafficSecret = TLSKeySchedule.deriveSecret(
            masterSecret, label: "s ap traffic", transcriptHash: serverFinishedHash)
        writeProtection = TLSRecordProtection(secret: serverTrafficSecret)
        expectedClientFinished = TLSKeySchedule.finishedVerifyData(
            secret: clientTrafficSecret, transcriptHash: serverFinishedHash)
        pendingNegotiation = TLSNegotiation(
            serverName: hello.serverName, applicationProtocol: applicationProtocol, group: group,
            usedHelloRetryRequest: retryGroup != nil)
        state = .expectingFinished
    }

    /// Answers a ClientHello with no usable share but a usable group with HelloRetryRequest;
    /// the transcript restarts from the first ClientHello's hash (§4.4.1).
    private mutating func requestRetry(
        _ hello: TLSClientHello, message: [UInt8], group: TLSNamedGroup, into output: inout TLSServerOutput
    ) {
        firstClientHello = hello
        retryGroup = group
        earlyDataSkipBudget = hello.offersEarlyData ? TLSRecordLimits.maximumCiphertext * 4 : 0
        transcript.update(TLSServerMessages.messageHash(of: message))
        let retry = TLSServerMessages.helloRetryRequest(sessionID: hello.sessionID, group: group)
        transcript.update(retry)
        Self.appendPlaintext(retry, type: .handshake, to: &output.outgoing)
        appendCompatibilityChangeCipherSpec(for: hello, to: &output.outgoing)
        state = .expectingSecondClientHello
    }

    /// Middlebox compatibility (Appendix D.4): a client that sent a session id gets one
    /// change_cipher_spec record after the server's first handshake message.
    private mutating func appendCompatibilityChangeCipherSpec(for hello: TLSClientHello, to outgoing: inout [UInt8]) {
        guard !hello.sessionID.isEmpty, !sentChangeCipherSpec else { return }
        sentChangeCipherSpec = true
        outgoing += [TLSContentType.changeCipherSpec.rawValue, 0x03, 0x03, 0x00, 0x01, 0x01]
    }

    private mutating func processFinished(_ message: [UInt8], into output: inout TLSServerOutput) throws(TLSFailure) {
        guard message.count == 4 + TLSKeySchedule.hashByteCount else {
            throw TLSFailure(.decodeError, "the client's Finished is \(message.count - 4) bytes, not 32")
        }
        guard ConstantTime.equals(message[4...], expectedClientFinished) else {
            throw TLSFailure(.decryptError, "the client's Finished does not verify")
        }
        guard handshakeBuffer.isEmpty else {
            throw TLSFailure(.unexpectedMessage, "a handshake message follows the client's Finished in its record")
        }
        transcript.update(message)
        clientTrafficSecret = clientApplicationSecret
        readProtection = TLSRecordProtection(secret: clientTrafficSecret)
        earlyDataSkipBudget = 0
        state = .connected
        negotiation = pendingNegotiation
        if let pendingNegotiation { output.events.append(.handshakeCompleted(pendingNegotiation)) }
    }

    /// §4.6.3: take the client's next traffic secret; when asked, send our own KeyUpdate
    /// under the current keys, then move to the next ones.
    private mutating func processKeyUpdate(_ message: [UInt8], into output: inout TLSServerOutput) throws(TLSFailure) {
        guard message.count == 5 else { throw TLSFailure(.decodeError, "a KeyUpdate is one byte") }
        guard message[4] <= 1 else {
            throw TLSFailure(.illegalParameter, "KeyUpdate request \(message[4]) is undefined")
        }
        guard handshakeBuffer.isEmpty else {
            throw TLSFailure(.unexpectedMessage, "a handshake message follows a KeyUpdate in its record")
        }
        clientTrafficSecret = TLSKeySchedule.nextTrafficSecret(clientTrafficSecret)
        readProtection = TLSRecordProtection(secret: clientTrafficSecret)
        let requested = message[4] == 1
        if requested, !isWriteClosed {
            writeProtection?.seal(
                TLSServerMessages.keyUpdate(requestsUpdate: false), type: .handshake, into: &output.outgoing)
            serverTrafficSecret = TLSKeySchedule.nextTrafficSecret(serverTrafficSecret)
            writeProtection = TLSRecordProtection(secret: serverTrafficSecret)
        }
        output.events.append(.keyUpdated(requested: requested))
    }
}
