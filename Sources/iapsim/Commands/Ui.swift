import Foundation
import IAPSimHTTP
import IAPSimKit

struct Ui: CLICommand {
    static let spec = CommandSpec(
        name: "ui", abstract: "Open a Transaction Manager in the browser, on this state.",
        synopsis: "[--port N] [--port-file FILE] [--open]",
        discussion: """
            Serves one page on 127.0.0.1, like Xcode's Transaction Manager: the catalog with
            localized prices and introductory-offer eligibility; the transactions as a table to
            filter, sort and page, each one's signed JWS decoded a click away; pending Ask to Buy
            requests and interrupted purchases; each subscription group as a timeline
            (purchase, renewals, upgrades, grace period, billing retry, expiry, refunds, with the
            simulated now as a line); the notifications with each delivery attempt; and the
            simulated clock. Its buttons and forms run the commands themselves (buy, approve,
            decline, resolve, finish, refund, request-refund, cancel-subscription, expire,
            renew, price-increase, trigger, clock, settings, restore), in this process, with
            --json: the page shows what the command line would print. A picker in its header
            chooses the customer every view and button acts for (iapsim accounts; --account
            picks the first one), and adds customers. A change made from a shell
            shows on the page within half a second, without a reload. Only this machine can
            reach it, and only the browser it signs in can use it: requests must name
            127.0.0.1:PORT or localhost:PORT in Host (else 421). It prints
            'Open http://127.0.0.1:PORT/login?secret=…', an address that works once: it gives
            that browser this run's session cookie (HttpOnly, SameSite=Strict), which the page
            and its every request need (else 401 or 403), from the page's own origin. The page
            never runs 'clock exec', 'accounts remove', or any option that writes outside the
            state or changes certificates. --port 0, the default, picks a free port;
            --port-file writes it; --open starts the desktop's browser on the sign-in address.
            It serves until SIGINT or SIGTERM, then exits 0.
            """,
        arguments: [],
        options: [
            .certs,
            .environment,
            .port,
            OptionSpec(
                name: "port-file", valueName: "FILE",
                help: "Write the port there once listening, for scripts; a symlink there is refused (exit 73)."),
            OptionSpec(name: "open", help: "Open the page in the desktop's browser (xdg-open, or open on macOS)."),
        ],
        examples: ["iapsim ui --port 0 --port-file \"${TMPDIR:-/tmp}/iapsim-ui.port\" & sleep 1; kill %1"])

    let port: UInt16
    let portFile: String?
    let opens: Bool

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
        port = try words.port()
        portFile = words.value("port-file")
        opens = words.flag("open")
    }

    func run(in context: CommandContext) throws -> Report {
        // The catalog and the state must load before the page is offered: an error now is a
        // clear exit status, not a page full of them.
        _ = try context.catalogAndSession()
        let location = try context.stateStore().location
        let commands = PageCommands(options: context.options, context: context.base)
        let token = TransactionManager.makeToken()
        let box = ManagerBox()
        let server: HTTPServer
        do {
            server = try HTTPServer(HTTPServer.Configuration(host: "127.0.0.1", port: port)) { request in
                guard let manager = box.manager else { return .status(.serviceUnavailable) }
                return manager.respond(request)
            }
        } catch {
            throw UsageError(error.localizedDescription, command: Self.spec.name)
        }
        var manager = TransactionManager(
            commands: commands, location: location, token: token, signIn: SignInSecret(), port: server.port)
        manager.stopping = { ListenSignals.stopRequested }
        manager.warm()
        box.manager = manager
        let url = manager.signInURL
        context.console.out("Open \(url)")
        try context.writePortFile(portFile, of: server)
        if opens, !Self.openBrowser(url) {
            context.console.notice("Warning: could not start a browser; open \(url) yourself")
        }
        ListenSignals.install()
        while !ListenSignals.stopRequested { ListenSignals.sleep(seconds: 0.2) }
        server.stop()
        server.waitUntilStopped()
        return Report()
    }

    /// Starts the desktop's browser on `url`: `open` on macOS, `xdg-open` elsewhere.
    private static func openBrowser(_ url: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        #if os(macOS)
            process.arguments = ["open", url]
        #else
            process.arguments = ["xdg-open", url]
        #endif
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        return true
    }
}

/// The manager, set once the server knows its port (which `Host` must name); the handler
/// answers 503 before that, for the instant between the two.
private final class ManagerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: TransactionManager?

    var manager: TransactionManager? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
