import Foundation
import IAPSimCrypto
import IAPSimKit

struct Token: CLICommand {
    static let spec = CommandSpec(
        name: "token", abstract: "Print a bearer token for 'iapsim serve' (for curl).",
        synopsis: "[--key-file FILE --key-id ID --issuer-id ID]",
        discussion: """
            Mints the JSON Web Token the App Store Server API expects (Apple, "Generating JSON
            Web Tokens for API requests"): ES256, aud appstoreconnect-v1, bid the app's bundle
            identifier, iat now and exp an hour on, on the simulated clock (serve accepts a
            token good on the simulated or the real clock). With --key-file (the .p8 App Store
            Connect gives, or one 'iapsim serve --key-file' checks) it is signed with that key,
            --key-id and --issuer-id naming it; without, with a key made for the occasion, which
            a serve without --key-file accepts. It prints the token alone, for
            curl -H "Authorization: Bearer $(iapsim token)" http://127.0.0.1:PORT/inApps/v1/….
            """,
        arguments: [],
        options: [
            OptionSpec(name: "key-file", valueName: "FILE", help: "The private key (.p8, PEM) to sign with."),
            OptionSpec(name: "key-id", valueName: "ID", help: "The key's id (kid); default IAPSIMKEY1."),
            OptionSpec(name: "issuer-id", valueName: "ID", help: "The issuer id (iss); default iapsim."),
        ],
        examples: [
            "iapsim token",
            "iapsim serve --port-file serve.port & sleep 1; curl -s -H \"Authorization: Bearer $(iapsim token)\" "
                + "\"http://127.0.0.1:$(cat serve.port)/inApps/v1/transactions/1\"; kill %1",
        ])

    let keyFile: String?
    let keyID: String
    let issuerID: String

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
        keyFile = words.value("key-file")
        keyID = words.value("key-id") ?? "IAPSIMKEY1"
        issuerID = words.value("issuer-id") ?? "iapsim"
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let key: P256PrivateKey
        if let keyFile {
            guard case .privateKey(let found) = try APIKeyFile.read(keyFile, in: context, command: Self.spec.name)
            else {
                throw UsageError(
                    "--key-file \(keyFile): a public key cannot sign; give the .p8", command: Self.spec.name)
            }
            key = found
        } else {
            key = try P256PrivateKey.generate()
        }
        let token = BearerTokenMint.token(
            bundleID: try session.settings().bundleID, issuerID: issuerID, keyID: keyID, key: key,
            now: try session.simulatedNow())
        return Report(json: .object([("token", .string(token))]), lines: [token])
    }
}

/// The developer's key file, as `serve` and `token` read it: a P-256 key in PEM, private (the
/// `.p8`) or public.
enum APIKeyFile {
    enum Key {
        case privateKey(P256PrivateKey)
        case publicKey(P256PublicKey)

        var publicKey: P256PublicKey {
            switch self {
            case .privateKey(let key): key.publicKey
            case .publicKey(let key): key
            }
        }
    }

    static func read(_ file: String, in context: CommandContext, command: String) throws(UsageError) -> Key {
        guard let data = FileManager().contents(atPath: context.absolutePath(file)) else {
            throw UsageError("--key-file \(file): cannot read it", command: command)
        }
        let text = String(decoding: data, as: UTF8.self)
        if let key = try? P256PrivateKey(pemRepresentation: text) { return .privateKey(key) }
        if let key = try? P256PublicKey(pemRepresentation: text) { return .publicKey(key) }
        throw UsageError("--key-file \(file): not a P-256 key in PEM (an App Store Connect .p8 file)", command: command)
    }
}
