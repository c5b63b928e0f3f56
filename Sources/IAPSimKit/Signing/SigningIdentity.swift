import Foundation
import IAPSimCrypto
import IAPSimJSON

/// The test certificates and keys iapsim signs with, kept in a folder (the state folder's
/// `certs`, or one a team pins with `--certs` / `IAPSIM_CERTS_DIR`):
///
/// - `root.pem`, `intermediate.pem`, `leaf.pem` and their `.key` files: a chain shaped like
///   the App Store's (root CA → intermediate marked 1.2.840.113635.100.6.2.1 → leaf marked
///   1.2.840.113635.100.6.11.1), valid from 1970 to 9999 so it covers every date the
///   simulated clock can reach. It signs `Sandbox`, `Production` and `LocalTesting` data.
/// - `xcode.pem` and `xcode.key`: one self-signed certificate, as Xcode's StoreKit testing
///   signs with, for the `Xcode` environment.
/// - `receipt-root.pem`, `receipt-intermediate.pem`, `receipt-leaf.pem` and their `.key`
///   files: the RSA-2048 chain app receipts are signed with (`ReceiptSigningChain`). Making
///   RSA keys takes a moment, so a set gets them when a receipt is first signed in it (or by
///   `certs`), not when JWS signing makes the set: an older set without them gains them the
///   same way, its other files carried over byte for byte.
///
/// Every subject says "iapsim TEST ONLY"; keys are written mode 0600 in a 0700 folder. They
/// protect nothing: a backend trusts them only in its tests.
///
/// A rotate replaces all the files or none (`CertificateSetFolder`): the names are links
/// through `current` to one set folder, switched by one rename.
///
/// A class, immutable: every request of a server hands the identity along (its certificates,
/// keys and memos), and copying it as a value retained each of them; a reference is one.
public final class SigningIdentity: Sendable {
    public let directory: String
    /// The set folder `current` named when the identity was read (nil for a folder from
    /// before sets): a signer reloads when it changes.
    public let generation: String?
    public let chain: TestCertificateChain
    public let xcodeCertificate: X509Certificate
    public let xcodeKey: P256PrivateKey
    /// The RSA chain that signs app receipts; nil until the set has one (`withReceiptChain`).
    public let receiptChain: ReceiptSigningChain?
    /// The two protected headers `sign` uses, encoded and hashed once.
    private let chainHeader: ES256.Header
    private let xcodeHeader: ES256.Header
    /// Payloads signed lately: RFC 6979 makes a signature a function of the payload.
    let memo = BoundedMemo<SignedPayloadKey, String>()
    /// Transactions signed lately, by the transaction and the signing context.
    let transactionMemo = BoundedMemo<SignedTransactionKey, (jws: String, payload: JSONValue)>()

    init(
        directory: String, generation: String?, chain: TestCertificateChain, xcodeCertificate: X509Certificate,
        xcodeKey: P256PrivateKey, receiptChain: ReceiptSigningChain?
    ) {
        self.receiptChain = receiptChain
        self.directory = directory
        self.generation = generation
        self.chain = chain
        self.xcodeCertificate = xcodeCertificate
        self.xcodeKey = xcodeKey
        let base64 = { (certificate: X509Certificate) in Data(certificate.derRepresentation).base64EncodedString() }
        xcodeHeader = ES256.Header(
            JSONValue.object([
                ("kid", .string("Apple_Xcode_Key")), ("typ", .string("JWT")), ("alg", .string(ES256.algorithm)),
                ("x5c", .array([.string(base64(xcodeCertificate))])),
            ]).bytes(compact: true))
        chainHeader = ES256.Header(
            JSONValue.object([
                ("alg", .string(ES256.algorithm)),
                ("x5c", .array(chain.certificatesLeafFirst.map { .string(base64($0)) })),
            ]).bytes(compact: true))
    }

    /// The files, in the order they are written and listed.
    public static let fileNames = [
        "root.pem", "root.key", "intermediate.pem", "intermediate.key", "leaf.pem", "leaf.key", "xcode.pem",
        "xcode.key",
    ]

    /// The identity in `directory`, made there first if it has none, under a lock so two
    /// processes never make two.
    /// - Throws: `SigningError.corruptIdentity` for a file that cannot be used, `StateError`
    ///   for a folder or file that cannot be made or read.
    public static func loadOrCreate(in directory: String, lockTimeout: Double) throws -> SigningIdentity {
        if let identity = try load(from: directory) { return identity }
        return try create(in: directory, replacing: false, lockTimeout: lockTimeout)
    }

    /// Makes a new chain in `directory`; with `replacing`, over the one there. With
    /// `receiptChain`, the set holds that RSA receipt chain too (`ReceiptSigningChain.generate`).
    /// With `replacedAt`, the set replaced is recorded (`ReplacedCertificateSet`) so the OCSP
    /// responder answers `revoked`, from that date, for its certificates.
    public static func create(
        in directory: String, replacing: Bool, lockTimeout: Double,
        receiptChain: (() throws -> ReceiptSigningChain)? = nil, replacedAt: Date? = nil
    ) throws -> SigningIdentity {
        try create(
            in: directory, replacing: replacing, lockTimeout: lockTimeout, receiptChain: receiptChain,
            replacedAt: replacedAt, step: { _ in })
    }

    /// `create`, calling `step` after each write a crash could interrupt: tests throw from it.
    static func create(
        in directory: String, replacing: Bool, lockTimeout: Double,
        receiptChain makeReceiptChain: (() throws -> ReceiptSigningChain)? = nil, replacedAt: Date? = nil,
        step: (String) throws -> Void
    ) throws -> SigningIdentity {
        do {
            try POSIXFile.makeDirectory(directory)
        } catch {
            throw StateError.cannotCreate(path: error.path, reason: error.reason)
        }
        return try FileLock.holding(path: directory + "/.lock", timeout: lockTimeout) {
            if !replacing, let identity = try load(from: directory) { return identity }  // made meanwhile
            removeLeftovers(in: directory)
            let chain = try TestCertificateChain.generate()
            let xcodeKey = try P256PrivateKey.generate()
            let name = DistinguishedName(
                commonName: "StoreKit Testing in Xcode (iapsim TEST ONLY)",
                organization: TestCertificateChain.organization)
            let xcode = try X509CertificateBuilder(
                serialNumber: [0x40] + Array(SHA256.hash(xcodeKey.publicKey.x963Representation).prefix(15)),
                issuer: name, subject: name, notBefore: TestCertificateChain.defaultNotBefore,
                notAfter: TestCertificateChain.defaultNotAfter, subjectPublicKey: xcodeKey.publicKey,
                extensions: [
                    .basicConstraints(isCertificateAuthority: false), .keyUsage([.digitalSignature]),
                    .subjectKeyIdentifier(X509Extension.keyIdentifier(for: xcodeKey.publicKey)),
                ]
            ).sign(with: xcodeKey)
            let contents = [
                chain.root.pemRepresentation, chain.rootKey.pemRepresentation,
                chain.intermediate.pemRepresentation, chain.intermediateKey.pemRepresentation,
                chain.leaf.pemRepresentation, chain.leafKey.pemRepresentation, xcode.pemRepresentation,
                xcodeKey.pemRepresentation,
            ]
            var files = zip(fileNames, contents).map { (name: $0, text: $1) }
            let receiptChain = try makeReceiptChain?()
            if let receiptChain {
                files += zip(ReceiptSigningChain.fileNames, receiptChain.fileContents).map { (name: $0, text: $1) }
            }
            // Recorded before the switch: a crash between leaves a record of the current set,
            // which the responder ignores, never a replaced set it does not know.
            if replacing, let replacedAt, let old = try? load(from: directory) {
                try ReplacedCertificateSet.record(old.chain, at: replacedAt, in: directory)
            }
            try CertificateSetFolder.install(files, in: directory, step: step)
            return SigningIdentity(
                directory: directory, generation: CertificateSetFolder.generation(of: directory), chain: chain,
                xcodeCertificate: xcode, xcodeKey: xcodeKey, receiptChain: receiptChain)
        }
    }

    /// Removes the temp files a kill left in the certs folder and its `replaced/` (one holds
    /// a replaced set's keys): only a writer holding the folder's lock makes one. Under it.
    static func removeLeftovers(in directory: String) {
        POSIXFile.removeTemporaries(inFolder: directory)
        POSIXFile.removeTemporaries(inFolder: directory + "/" + ReplacedCertificateSet.folderName)
    }

    /// The identity in `directory`, or nil when it has none yet. A read that a rotate
    /// overlapped (`current` changed meanwhile) is read again, so it is one whole set.
    public static func load(from directory: String) throws -> SigningIdentity? {
        var attempts = 0
        while true {
            let before = CertificateSetFolder.generation(of: directory)
            do {
                let identity = try loadOnce(from: directory, generation: before)
                if CertificateSetFolder.generation(of: directory) == before || attempts >= 100 { return identity }
            } catch {
                if CertificateSetFolder.generation(of: directory) == before || attempts >= 100 { throw error }
            }
            attempts += 1
        }
    }

    private static func loadOnce(from directory: String, generation: String?) throws -> SigningIdentity? {
        guard FileSystem.exists(directory + "/leaf.key") else { return nil }
        func text(_ name: String) throws -> (String, String) {
            let path = directory + "/" + name
            let data: Data?
            do {
                data = try POSIXFile.readIfPresent(path)
            } catch {
                throw StateError.unreadable(path: path, reason: error.reason)
            }
            guard let data else { throw SigningError.corruptIdentity(path: path, detail: "the file is missing") }
            return (path, String(decoding: data, as: UTF8.self))
        }
        func certificate(_ name: String) throws -> X509Certificate {
            let (path, pem) = try text(name)
            do {
                return try X509Certificate(pemRepresentation: pem)
            } catch {
                throw SigningError.corruptIdentity(path: path, detail: error.localizedDescription)
            }
        }
        func key(_ name: String) throws -> P256PrivateKey {
            let (path, pem) = try text(name)
            do {
                return try P256PrivateKey(pemRepresentation: pem)
            } catch {
                throw SigningError.corruptIdentity(path: path, detail: error.localizedDescription)
            }
        }
        let (root, intermediate, leaf) = (
            try certificate("root.pem"), try certificate("intermediate.pem"), try certificate("leaf.pem")
        )
        let (rootKey, intermediateKey, leafKey) = (
            try key("root.key"), try key("intermediate.key"), try key("leaf.key")
        )
        let (xcode, xcodeKey) = (try certificate("xcode.pem"), try key("xcode.key"))
        let pairs: [(String, X509Certificate, P256PrivateKey)] = [
            ("root", root, rootKey), ("intermediate", intermediate, intermediateKey), ("leaf", leaf, leafKey),
            ("xcode", xcode, xcodeKey),
        ]
        for (name, certificate, key) in pairs where (try? certificate.publicKey()) != key.publicKey {
            throw SigningError.corruptIdentity(
                path: directory + "/\(name).key", detail: "the key does not belong to \(name).pem")
        }
        guard leaf.isIssued(by: intermediate), intermediate.isIssued(by: root) else {
            throw SigningError.corruptIdentity(
                path: directory + "/leaf.pem", detail: "the certificates do not form a chain to root.pem")
        }
        var receiptChain: ReceiptSigningChain?
        // receipt-leaf.key is written last of the RSA files, as leaf.key is of the set's.
        if FileSystem.exists(directory + "/receipt-leaf.key") {
            func rsaKey(_ name: String) throws -> RSAPrivateKey {
                let (path, pem) = try text(name)
                do {
                    return try RSAPrivateKey(pemRepresentation: pem)
                } catch {
                    throw SigningError.corruptIdentity(path: path, detail: error.localizedDescription)
                }
            }
            let (root, intermediate, leaf) = (
                try certificate("receipt-root.pem"), try certificate("receipt-intermediate.pem"),
                try certificate("receipt-leaf.pem")
            )
            let (rootKey, intermediateKey, leafKey) = (
                try rsaKey("receipt-root.key"), try rsaKey("receipt-intermediate.key"), try rsaKey("receipt-leaf.key")
            )
            let pairs: [(String, X509Certificate, RSAPrivateKey)] = [
                ("receipt-root", root, rootKey), ("receipt-intermediate", intermediate, intermediateKey),
                ("receipt-leaf", leaf, leafKey),
            ]
            for (name, certificate, key) in pairs where (try? certificate.rsaPublicKey()) != key.publicKey {
                throw SigningError.corruptIdentity(
                    path: directory + "/\(name).key", detail: "the key does not belong to \(name).pem")
            }
            guard leaf.isIssued(by: intermediate), intermediate.isIssued(by: root) else {
                throw SigningError.corruptIdentity(
                    path: directory + "/receipt-leaf.pem",
                    detail: "the certificates do not form a chain to receipt-root.pem")
            }
            receiptChain = ReceiptSigningChain(
                root: root, intermediate: intermediate, leaf: leaf, rootKey: rootKey, intermediateKey: intermediateKey,
                leafKey: leafKey)
        }
        return SigningIdentity(
            directory: directory, generation: generation,
            chain: TestCertificateChain(
                root: root, intermediate: intermediate, leaf: leaf, rootKey: rootKey, intermediateKey: intermediateKey,
                leafKey: leafKey),
            xcodeCertificate: xcode, xcodeKey: xcodeKey, receiptChain: receiptChain)
    }

    /// This identity with its RSA receipt chain: itself when it has one; else the set in its
    /// folder gains one (`make`, by default three fresh RSA-2048 keys), written as a new set
    /// whose other files are the current ones byte for byte, switched in by one rename under
    /// the folder's lock — so a set from an older iapsim, or one JWS signing made, keeps its
    /// P-256 chain and only grows.
    /// - Throws: `SigningError.corruptIdentity` or `StateError` as `load` does.
    public func withReceiptChain(
        lockTimeout: Double, make: () throws -> ReceiptSigningChain = { try ReceiptSigningChain.generate() }
    ) throws -> SigningIdentity {
        if receiptChain != nil { return self }
        return try FileLock.holding(path: directory + "/.lock", timeout: lockTimeout) {
            guard let current = try Self.load(from: directory) else {
                throw SigningError.corruptIdentity(path: directory + "/leaf.key", detail: "the file is missing")
            }
            if current.receiptChain != nil { return current }  // made meanwhile
            Self.removeLeftovers(in: directory)
            var files: [(name: String, text: String)] = []
            for name in Self.fileNames {
                let path = directory + "/" + name
                let data: Data?
                do {
                    data = try POSIXFile.readIfPresent(path)
                } catch let failure as POSIXFile.Failure {
                    throw StateError.unreadable(path: path, reason: failure.reason)
                }
                guard let data else { throw SigningError.corruptIdentity(path: path, detail: "the file is missing") }
                files.append((name, String(decoding: data, as: UTF8.self)))
            }
            let receiptChain = try make()
            files += zip(ReceiptSigningChain.fileNames, receiptChain.fileContents).map { (name: $0, text: $1) }
            try CertificateSetFolder.install(files, in: directory, step: { _ in })
            return SigningIdentity(
                directory: directory, generation: CertificateSetFolder.generation(of: directory), chain: current.chain,
                xcodeCertificate: current.xcodeCertificate, xcodeKey: current.xcodeKey, receiptChain: receiptChain)
        }
    }

    /// The roots a receipt may chain to: the RSA receipt root, and the P-256 root, which
    /// signed the receipts of iapsim versions before the RSA chain (they still verify).
    public var receiptTrustAnchors: [X509Certificate] {
        (receiptChain.map { [$0.root] } ?? []) + [chain.root]
    }

    /// Signs `payload` as the App Store would for `environment`: the three-certificate chain
    /// in `x5c`, or for `Xcode` the self-signed certificate with Xcode's `kid` and `typ`.
    /// - Returns: the compact JWS, `header.payload.signature`.
    /// A payload signed again is answered from `memo`.
    public func sign(_ payload: JSONValue, environment: AppStoreEnvironment) -> String {
        let bytes = payload.bytes(compact: true)
        let xcode = environment == .xcode
        guard bytes.count <= SignedPayloadKey.payloadLimit else { return sign(bytes, xcode: xcode) }
        return memo.value(for: SignedPayloadKey(xcode: xcode, payload: bytes)) { sign(bytes, xcode: xcode) }
    }

    /// Signs `payload` as `sign(_:environment:)` does, without the memo: for payloads that are
    /// new by construction (a listing's rows, a transaction `transactionMemo` did not have),
    /// where a look-up would only hash the bytes and crowd out what the memo is for.
    public func signOnce(_ payload: JSONValue, environment: AppStoreEnvironment) -> String {
        sign(payload.bytes(compact: true), xcode: environment == .xcode)
    }

    private func sign(_ bytes: [UInt8], xcode: Bool) -> String {
        xcode ? xcodeHeader.sign(payload: bytes, key: xcodeKey) : chainHeader.sign(payload: bytes, key: chain.leafKey)
    }
}

extension SigningIdentity {
    /// `transaction` as a JWSTransaction signed in `context` (`SignedPayloads.transaction`,
    /// signed for the context's environment), with its payload; a transaction signed again in
    /// the same context comes from `transactionMemo`, without building its payload.
    public func signedTransaction(_ transaction: Transaction, context: SigningContext) -> (
        jws: String, payload: JSONValue
    ) {
        transactionMemo.value(for: SignedTransactionKey(transaction: transaction, context: context)) {
            let payload = SignedPayloads.transaction(transaction, context: context)
            return (signOnce(payload, environment: context.environment), payload)
        }
    }

    /// Writes what a backend's tests trust into `directory`: `root.pem`, `root.der` (the
    /// form Apple's libraries take), `intermediate.pem`, `leaf.pem` and `xcode.pem`, and
    /// when the set has its receipt chain `receipt-root.pem`, `receipt-root.der`,
    /// `receipt-intermediate.pem` and `receipt-leaf.pem`. No key
    /// leaves the identity's folder. The folder is outside the state, perhaps in a shared
    /// `/tmp`: neither it nor a file in it is written through a symlink (`OutsideFile`).
    /// - Returns: the paths written.
    public func export(to directory: String) throws -> [String] {
        try OutsideFile.makeDirectory(directory)
        var files: [(String, [UInt8])] = [
            ("root.pem", Array(chain.root.pemRepresentation.utf8)), ("root.der", chain.root.derRepresentation),
            ("intermediate.pem", Array(chain.intermediate.pemRepresentation.utf8)),
            ("leaf.pem", Array(chain.leaf.pemRepresentation.utf8)),
            ("xcode.pem", Array(xcodeCertificate.pemRepresentation.utf8)),
        ]
        if let receiptChain {
            files += [
                ("receipt-root.pem", Array(receiptChain.root.pemRepresentation.utf8)),
                ("receipt-root.der", receiptChain.root.derRepresentation),
                ("receipt-intermediate.pem", Array(receiptChain.intermediate.pemRepresentation.utf8)),
                ("receipt-leaf.pem", Array(receiptChain.leaf.pemRepresentation.utf8)),
            ]
        }
        var written: [String] = []
        for (name, bytes) in files {
            let path = directory + "/" + name
            try OutsideFile.write(bytes, to: path)
            written.append(path)
        }
        return written
    }
}
