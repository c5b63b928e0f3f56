/// A parsed ClientHello (RFC 8446 §4.1.2) with the extensions a TLS 1.3 server acts on.
///
/// Parsing checks the encoding only (lengths, duplicates, pre_shared_key last); whether the
/// offer is acceptable is the engine's decision.
struct TLSClientHello {
    /// A key share: the group's code point and the public value.
    struct KeyShare {
        let group: UInt16
        let key: [UInt8]
    }

    var legacyVersion: UInt16 = 0
    var random: [UInt8] = []
    var sessionID: [UInt8] = []
    var cipherSuites: [UInt16] = []
    var compressionMethods: [UInt8] = []
    /// supported_versions (43), nil when absent: then only TLS 1.2 or older is offered.
    var supportedVersions: [UInt16]?
    /// supported_groups (10).
    var supportedGroups: [UInt16]?
    /// key_share (51).
    var keyShares: [KeyShare]?
    /// signature_algorithms (13).
    var signatureAlgorithms: [UInt16]?
    /// The first host_name of server_name (0).
    var serverName: String?
    /// application_layer_protocol_negotiation (16).
    var applicationProtocols: [String]?
    /// early_data (42) was offered; it is never accepted here.
    var offersEarlyData = false

    enum Extension: UInt16 {
        case serverName = 0
        case supportedGroups = 10
        case signatureAlgorithms = 13
        case applicationProtocols = 16
        case preSharedKey = 41
        case earlyData = 42
        case supportedVersions = 43
        case keyShare = 51
    }

    /// Parses the body of a ClientHello handshake message (after its four-byte header).
    /// - Throws: decode_error for malformed encodings, illegal_parameter for a repeated
    ///   extension or a pre_shared_key that is not last.
    init(body: ArraySlice<UInt8>) throws(TLSFailure) {
        var reader = TLSByteReader(body)
        legacyVersion = try reader.readUInt16()
        random = Array(try reader.readBytes(32))
        var session = try reader.readVector8()
        guard session.remainingCount <= 32 else {
            throw TLSFailure(.illegalParameter, "the session id is over 32 bytes")
        }
        sessionID = Array(session.readRest())
        var suites = try reader.readVector16()
        guard suites.remainingCount >= 2, suites.remainingCount % 2 == 0 else {
            throw TLSFailure(.decodeError, "the cipher suite list is empty or odd")
        }
        while !suites.isAtEnd { cipherSuites.append(try suites.readUInt16()) }
        var compression = try reader.readVector8()
        guard !compression.isAtEnd else { throw TLSFailure(.decodeError, "the compression method list is empty") }
        compressionMethods = Array(compression.readRest())
        // A ClientHello may end here (TLS 1.2 and older): then there are no extensions.
        guard !reader.isAtEnd else { return }
        var extensions = try reader.readVector16()
        try reader.finish("the ClientHello")
        var seen = Set<UInt16>()
        while !extensions.isAtEnd {
            let type = try extensions.readUInt16()
            var data = try extensions.readVector16()
            guard seen.insert(type).inserted else { throw TLSFailure(.illegalParameter, "extension \(type) repeats") }
            if type == Extension.preSharedKey.rawValue, !extensions.isAtEnd {
                throw TLSFailure(.illegalParameter, "pre_shared_key is not the last extension")
            }
            try read(Extension(rawValue: type), from: &data)
        }
    }

    /// Reads one extension's data; unknown extensions are skipped, as RFC 8446 §4.2 requires.
    private mutating func read(_ type: Extension?, from data: inout TLSByteReader) throws(TLSFailure) {
        switch type {
        case .supportedVersions:
            var list = try data.readVector8()
            guard list.remainingCount >= 2, list.remainingCount % 2 == 0 else {
                throw TLSFailure(.decodeError, "supported_versions is empty or odd")
            }
            supportedVersions = try Self.readUInt16List(&list)
        case .supportedGroups:
            var list = try data.readVector16()
            guard list.remainingCount >= 2, list.remainingCount % 2 == 0 else {
                throw TLSFailure(.decodeError, "supported_groups is empty or odd")
            }
            supportedGroups = try Self.readUInt16List(&list)
        case .signatureAlgorithms:
            var list = try data.readVector16()
            guard list.remainingCount >= 2, list.remainingCount % 2 == 0 else {
                throw TLSFailure(.decodeError, "signature_algorithms is empty or odd")
            }
            signatureAlgorithms = try Self.readUInt16List(&list)
        case .keyShare:
            var list = try data.readVector16()
            var shares = [KeyShare]()
            while !list.isAtEnd {
                let group = try list.readUInt16()
                var key = try list.readVector16()
                guard !key.isAtEnd else { throw TLSFailure(.decodeError, "a key share is empty") }
                shares.append(KeyShare(group: group, key: Array(key.readRest())))
            }
            keyShares = shares
        case .serverName:
            var list = try data.readVector16()
            guard !list.isAtEnd else { throw TLSFailure(.decodeError, "server_name is empty") }
            while !list.isAtEnd {
                let nameType = try list.readUInt8()
                var name = try list.readVector16()
                guard nameType == 0, serverName == nil else { continue }
                let bytes = name.readRest()
                // RFC 6066 §3: an ASCII host name without a trailing dot.
                guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), bytes.last != UInt8(ascii: ".")
                else { throw TLSFailure(.illegalParameter, "server_name is not a host name") }
                serverName = String(decoding: bytes, as: UTF8.self).lowercased()
            }
        case .applicationProtocols:
            var list = try data.readVector16()
            guard !list.isAtEnd else { throw TLSFailure(.decodeError, "the ALPN list is empty") }
            var names = [String]()
            while !list.isAtEnd {
                var name = try list.readVector8()
                guard !name.isAtEnd else { throw TLSFailure(.decodeError, "an ALPN protocol name is empty") }
                names.append(String(decoding: name.readRest(), as: UTF8.self))
            }
            applicationProtocols = names
        case .earlyData:
            offersEarlyData = true
            _ = data.readRest()
        case .preSharedKey, nil:
            _ = data.readRest()
        }
        try data.finish("an extension")
    }

    private static func readUInt16List(_ list: inout TLSByteReader) throws(TLSFailure) -> [UInt16] {
        var values = [UInt16]()
        while !list.isAtEnd { values.append(try list.readUInt16()) }
        return values
    }
}
