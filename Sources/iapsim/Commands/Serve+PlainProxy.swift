import Foundation
import IAPSimHTTP
import IAPSimKit

extension Serve {
    /// What `serve` does for a client that uses its port as a plain HTTP proxy (`HTTP_PROXY`),
    /// which then sends absolute-form requests (`POST http://ocsp.iapsim.test/ HTTP/1.1`):
    /// iapsim's OCSP responder answers for its host, a URL naming this server itself is served
    /// as usual, and any other host is refused (403): iapsim never forwards to the network.
    struct PlainProxy: Sendable {
        let responder: OCSPResponder
        /// The address serve listens on (`--host`).
        let listeningHost: String
        /// The port serve listens on, known once it listens.
        let listeningPort = PortBox()

        /// The answer to `request` when it is a proxy request for another host, and the log's
        /// reason; nil when the request is for this server.
        func answer(_ request: HTTPRequest) -> (response: HTTPResponse, reason: String)? {
            guard let authority = request.absoluteAuthority, request.tunnelHost == nil else { return nil }
            if authority.host == OCSPResponder.host { return responder.respond(to: request) }
            if authority.port == listeningPort.value,
                Loopback.isLoopback(authority.host) || authority.host == listeningHost.lowercased()
            {
                return nil
            }
            return (.status(.forbidden), "\(authority.host):\(authority.port) is not iapsim's; it forwards nowhere")
        }
    }

    /// The listening port, set once the server has one: the handler is made before it is.
    final class PortBox: @unchecked Sendable {
        private let lock = NSLock()
        private var port = -1

        var value: Int {
            get { lock.withLock { port } }
            set { lock.withLock { port = newValue } }
        }
    }
}
