import Foundation
import IAPSimCrypto
import IAPSimKit
import Testing

@testable import iapsim

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an adversary found against `serve`, `listen` and the commands that write or read
/// outside the state (issue 22): each refusal as a user meets it, its exit code and message.
@Suite struct AdversaryTests {
    /// `--header` could add a second Content-Length, Transfer-Encoding or Host to each POST.
    @Test func listenRefusesHeadersThatFrameTheRequest() {
        let harness = Harness()
        for header in ["Content-Length: 5", "transfer-encoding: chunked", "Host: elsewhere", "Connection: keep-alive"] {
            let result = harness.run("listen", "--forward-to", "http://127.0.0.1:9/hook", "--header", header, "--drain")
            #expect(result.status == 64, "\(header)")
            #expect(result.stderr.contains("--header \(header): iapsim writes Host, Content-Length"), "\(header)")
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

    /// `serve --host` bound any address without a word, and off loopback any well-formed
    /// unsigned token was accepted.
    @Test func serveListensOffLoopbackOnlyWhenToldOfTheRiskAndGivenAKey() throws {
        let harness = Harness()
        for host in ["0.0.0.0", "::", "192.168.1.2"] {
            let result = harness.run("serve", "--host", host)
            #expect(result.status == 64, "\(host)")
            #expect(result.stderr.contains("--host \(host): not a loopback address"), "\(result.stderr)")
        }
        let noKey = harness.run("serve", "--host", "0.0.0.0", "--insecure-remote")
        #expect(noKey.status == 64 && noKey.stderr.contains("--insecure-remote needs --key-file"))
        // With both, it listens (and stops at once here: its port file is refused).
        let key = harness.stateDirectory + "/AuthKey_TEST.p8"
        try FileManager().createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        try Data(P256PrivateKey.generate().pemRepresentation.utf8).write(to: URL(fileURLWithPath: key))
        let link = try plantSymlink(in: harness.stateDirectory, named: "remote.port")
        let both = harness.run(
            "serve", "--host", "0.0.0.0", "--insecure-remote", "--key-file", key, "--port-file", link.path)
        #expect(both.stdout.hasPrefix("Listening on http://0.0.0.0:"), "\(both.stderr)")
        #expect(both.stderr.contains("Warning: --insecure-remote: 0.0.0.0 may be reached from other machines"))
        #expect(both.status == 73)
    }

    /// A symlink at `name` in `folder` to a file holding "precious"; returns both paths.
    private func plantSymlink(in folder: String, named name: String) throws -> (path: String, target: String) {
        try FileManager().createDirectory(atPath: folder, withIntermediateDirectories: true)
        let target = folder + "/precious-" + name
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        let path = folder + "/" + name
        try FileManager().createSymbolicLink(atPath: path, withDestinationPath: target)
        return (path, target)
    }

    /// `--port-file` followed a planted symlink and overwrote its target.
    @Test func servesPortFileIsNeverWrittenThroughASymlink() throws {
        let harness = Harness()
        let link = try plantSymlink(in: harness.stateDirectory, named: "iapsim.port")
        let result = harness.run("serve", "--port-file", link.path)
        #expect(result.status == 73)
        #expect(result.stderr.contains("\(link.path): cannot create: it is a symbolic link"), "\(result.stderr)")
        #expect(try String(contentsOfFile: link.target, encoding: .utf8) == "precious")
    }

    /// `certs export` wrote through symlinks too, at the folder or at a file in it.
    @Test func certsExportIsNeverWrittenThroughASymlink() throws {
        let harness = Harness()
        try harness.installReceiptChainFixture()
        let folder = harness.stateDirectory + "/trusted"
        let link = try plantSymlink(in: folder, named: "root.pem")
        let result = harness.run("certs", "export", folder)
        #expect(result.status == 73)
        #expect(result.stderr.contains("\(link.path): cannot create: it is a symbolic link"), "\(result.stderr)")
        #expect(try String(contentsOfFile: link.target, encoding: .utf8) == "precious")
        let linkedFolder = harness.stateDirectory + "/linked"
        try FileManager().createSymbolicLink(atPath: linkedFolder, withDestinationPath: folder)
        #expect(harness.run("certs", "export", linkedFolder).status == 73)
        // A plain folder, and a second export over the first: files replaced whole.
        let plain = harness.stateDirectory + "/plain"
        #expect(harness.run("certs", "export", plain).status == 0)
        #expect(harness.run("certs", "export", plain).status == 0)
        let names = try FileManager().contentsOfDirectory(atPath: plain).sorted()
        #expect(
            names == [
                "intermediate.pem", "leaf.pem", "receipt-intermediate.pem", "receipt-leaf.pem", "receipt-root.der",
                "receipt-root.pem", "root.der", "root.pem", "tls-root.pem", "xcode.pem",
            ])
    }

    /// `jws decode` of a 200 MB input took 22 s and 1.3 GB before it said no.
    @Test func jwsDecodeRefusesAnOversizedInputAtOnce() {
        let harness = Harness()
        let big = String(repeating: "A", count: JWSInspection.maximumLength + 1)
        harness.answers = [big]
        let piped = harness.run("jws", "decode")
        #expect(piped.status == 65)
        #expect(piped.stderr.contains("the JWS is longer than 1048576 bytes"), "\(piped.stderr)")
        let argument = harness.run("jws", "decode", big)
        #expect(argument.status == 65 && argument.stderr == piped.stderr)
        #expect(throws: SigningError.jwsTooLarge(limit: 1 << 20)) { try JWSInspection.inspect(big, trusting: nil) }
    }

    /// The port-in-use error said "cannot listen on …" twice.
    @Test func aPortInUseIsSaidOnce() throws {
        let harness = Harness()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        #expect(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let result = harness.run("serve", "--port", String(port))
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "Error: cannot listen on 127.0.0.1:\(port): Address already in use; pick another port, or 0 for any "
                + "free one (see 'iapsim serve --help')\n")
    }

    /// A copy of the bundled catalog with `edit` applied to its `.storekit` text.
    private func catalog(_ edit: (String) -> String) throws -> String {
        let folder = Harness.temporaryPath("iapsim-catalog-")
        try FileManager().createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["Products.storekit", "Products.prices.json", "IAPProductIDs.plist"] {
            var data = try Data(contentsOf: URL(fileURLWithPath: Harness.repositoryRoot + "/catalog/" + name))
            if name.hasSuffix(".storekit") {
                let text = String(decoding: data, as: UTF8.self)
                let edited = edit(text)
                #expect(edited != text, "the edit changed nothing")
                data = Data(edited.utf8)
            }
            try data.write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        return folder
    }

    /// `price-increase 1e29` put a price beyond Int64 milliunits into signed renewal info.
    @Test func aPriceBeyondWhatSignedDataCarriesIsRefused() throws {
        let harness = Harness()
        #expect(harness.run("buy", "com.example.app.pro.monthly", "--yes").status == 0)
        let huge = harness.run("price-increase", "com.example.app.pro.monthly", "100000000000000000000000000000")
        #expect(huge.status == 64)
        #expect(huge.stderr.contains("100000000000000000000000000000 is above 1000000000000"), "\(huge.stderr)")
        #expect(harness.run("price-increase", "com.example.app.pro.monthly", "1000000000000").status == 0)
        let renewal = harness.run("jws", "renewal", "com.example.app.pro.monthly")
        #expect(renewal.status == 0)
        let folder = try catalog {
            $0.replacingOccurrences(of: #""displayPrice" : "2.99""#, with: #""displayPrice" : "1000000000000.01""#)
        }
        let dear = Harness(environment: ["IAPSIM_CATALOG": folder]).run("list")
        #expect(dear.status == 65)
        #expect(dear.stderr.contains("price 1000000000000.01 is above 1000000000000"), "\(dear.stderr)")
    }

    /// An offer's subtitle read "every 9223372036854775807 days": periods are bounded to a
    /// year when the catalog is read.
    @Test func aPeriodLongerThanAYearIsRefusedWhenTheCatalogIsRead() throws {
        for (from, to) in [
            (#""recurringSubscriptionPeriod" : "P1M""#, #""recurringSubscriptionPeriod" : "P9223372036854775807D""#),
            (#""subscriptionPeriod" : "P1W""#, #""subscriptionPeriod" : "P53W""#),
        ] {
            let folder = try catalog { $0.replacingOccurrences(of: from, with: to) }
            let harness = Harness(environment: ["IAPSIM_CATALOG": folder])
            let list = harness.run("list")
            #expect(list.status == 65)
            #expect(list.stderr.contains("is not a subscription period of a day to a year"), "\(list.stderr)")
            #expect(!list.stdout.contains("9223372036854775807"))
        }
        let folder = try catalog {
            $0.replacingOccurrences(
                of: #""recurringSubscriptionPeriod" : "P1M""#, with: #""recurringSubscriptionPeriod" : "P2Y""#)
        }
        let check = Harness(environment: ["IAPSIM_CATALOG": folder]).run("check")
        #expect(check.status == 65)
        #expect(check.stdout.contains(#""P2Y" is not a period of a day to a year"#), "\(check.stdout)")
    }

    /// A newline in a catalog's text started a new line of output, which a script reading the
    /// output line by line took for a line of its own.
    @Test func aNewlineInCatalogTextStaysOnItsLine() throws {
        let folder = try catalog {
            $0.replacingOccurrences(of: #""displayName" : "Pro, monthly""#, with: #""displayName" : "Pro\nFAKE LINE""#)
                .replacingOccurrences(of: #""name" : "Pro""#, with: #""name" : "Pro\nFAKE GROUP""#)
        }
        let harness = Harness(environment: ["IAPSIM_CATALOG": folder])
        let list = harness.run("list")
        let buy = harness.run("buy", "com.example.app.pro.monthly", "--yes")
        #expect(list.status == 0 && buy.status == 0)
        for output in [list.stdout, buy.stdout] {
            #expect(output.contains("Pro\\u{A}FAKE"), "\(output)")
            #expect(!output.split(separator: "\n").contains { $0.hasPrefix("FAKE") }, "\(output)")
        }
    }
}
