import Foundation
import IAPSimCrypto
import IAPSimHTTP
import IAPSimKit

extension Runner {
    /// `serve`: the App Store Server API on this machine, over the same state as the CLI,
    /// until SIGINT or SIGTERM.
    func serve(_ request: ServeRequest) throws -> Report {
        let (_, session) = try catalogAndSession()
        var verifier = BearerTokenVerifier()
        if let file = request.keyFile {
            let path = context.absolutePath(file)
            guard let data = FileManager().contents(atPath: path) else {
                throw UsageError("--key-file \(file): cannot read it", command: .serve)
            }
            let text = String(decoding: data, as: UTF8.self)
            let publicKey: P256PublicKey
            if let key = try? P256PrivateKey(pemRepresentation: text) {
                publicKey = key.publicKey
            } else if let key = try? P256PublicKey(pemRepresentation: text) {
                publicKey = key
            } else {
                throw UsageError("--key-file \(file): not a P-256 key in PEM (an App Store Connect .p8 file)", command: .serve)
            }
            verifier = BearerTokenVerifier(publicKey: publicKey, keyID: request.keyID, issuerID: request.issuerID)
        }
        let api = AppStoreServerAPI(session: session, signer: try signer(), verifier: verifier, realNow: context.now)
        let server: HTTPServer
        do {
            server = try HTTPServer(HTTPServer.Configuration(host: request.host, port: request.port)) { http in
                let response = api.respond(
                    APIRequest(
                        method: http.method, pathComponents: http.pathComponents, query: http.query,
                        authorization: http.headers["Authorization"], body: http.body))
                return response.body.isEmpty
                    ? HTTPResponse(status: HTTPStatus(response.status))
                    : HTTPResponse.json(response.body, status: HTTPStatus(response.status))
            }
        } catch {
            throw UsageError("cannot listen on \(request.host):\(request.port): \(error.localizedDescription)", command: .serve)
        }
        console.out("Listening on http://\(request.host.contains(":") ? "[\(request.host)]" : request.host):\(server.port)")
        if verifier.publicKey == nil {
            console.notice("Warning: no --key-file: any well-formed bearer token is accepted")
        }
        if let file = request.portFile {
            do {
                try Data("\(server.port)\n".utf8).write(to: URL(fileURLWithPath: context.absolutePath(file)))
            } catch {
                server.stop()
                throw UsageError("--port-file \(file): cannot write it: \(error.localizedDescription)", command: .serve)
            }
        }
        ListenSignals.install()
        while !ListenSignals.stopRequested { ListenSignals.sleep(seconds: 0.2) }
        server.stop()
        server.waitUntilStopped()
        return Report()
    }
}
