import Foundation
import IAPSimKit
import Testing

@testable import iapsim

/// What an adversary found against `serve`, `listen` and the commands that write or read
/// outside the state (issue 22): each refusal as a user meets it, its exit code and message.
@Suite struct AdversaryTests {
    /// `--header` could add a second Content-Length, Transfer-Encoding or Host to each POST.
    @Test func listenRefusesHeadersThatFrameTheRequest() {
        let harness = Harness()
        for header in ["Content-Length: 5", "transfer-encoding: chunked", "Host: elsewhere", "Connection: keep-alive"] {
            let result = harness.run("listen", "--forward-to", "http://127.0.0.1:9/hook", "--header", header, "--drain")
            #expect(result.status == 64, "\(header)")
            #expect(result.stderr.contains("--header \(header): iapsim writes Host, Content-Length"), "\(result.stderr)")
        }
    }

    /// `--forward-to` sent signed data to any host without a word.
    @Test func listenWarnsWhenTheWebhookIsNotOnThisMachine() {
        let harness = Harness()
        let remote = harness.run("listen", "--forward-to", "http://10.1.2.3:9/hook", "--drain", "--timeout", "0.2")
        #expect(remote.status == 0)
        #expect(remote.stderr.contains("Warning: --forward-to 10.1.2.3 is not a loopback address"), "\(remote.stderr)")
        for url in ["http://127.0.0.1:9/hook", "http://[::1]:9/hook", "http://localhost:9/hook"] {
            let local = harness.run("listen", "--forward-to", url, "--drain", "--timeout", "0.2")
            #expect(local.status == 0 && !local.stderr.contains("loopback"), "\(url): \(local.stderr)")
        }
    }
}
