import Foundation
import IAPSimJSON
import IAPSimKit

struct Clock: CLICommand {
    static let spec = CommandSpec(
        name: "clock", abstract: "Show or move the simulated clock.",
        synopsis: "[advance DURATION | advance --to DATE | set DATE | freeze | run | reset | exec -- COMMAND [ARG...]]",
        discussion: """
            The simulator keeps its own clock in the state. It runs at real speed, or fast
            under the deprecated ...IsOneDay time rates, unless frozen; under the
            monthlyRenewalEvery... rates each subscription period lasts what Apple's table
            gives (a month 30 s at monthlyRenewalEveryThirtySeconds). 'advance P1M' (ISO 8601,
            or the shorthands 30d, 2w, 12h, 90min, 1y, 3mo) or 'advance --to
            2027-01-01T00:00:00Z' moves it forward, and subscriptions renew, enter billing retry or expire on the way. 'freeze' stops it (for scripts that
            check exact dates), 'run' restarts it, 'reset' returns to real time.

            'exec -- COMMAND [ARG...]' runs a program (a backend, a test runner) whose wall
            clock follows the simulated one live: it starts at the simulated time, ticks at
            real speed, stands still while the clock is frozen, and moves within two seconds when
            'clock advance', 'set', 'freeze', 'run' or 'reset' run in another shell. It uses
            libfaketime (Debian: apt-get install faketime; elsewhere set IAPSIM_LIBFAKETIME),
            preloaded into dynamically linked programs (Python, Ruby, Node, the JVM, most C);
            not statically linked ones (Go). Its standard input, output and error are the
            terminal's; it runs in a process group of its own, to which the signals iapsim
            receives are passed on (what it starts stops with it); and iapsim exits with its
            status (127: no such program, 126: it cannot run, 69: no libfaketime, or one that
            cannot be preloaded here — not a shared library, another architecture's — which
            would leave the program on the real clock).
            With --serve-port-file FILE (the --port-file of a running 'iapsim serve') the program
            also reaches that serve for Apple's hosts, with its code unchanged: HTTPS_PROXY and
            https_proxy name it, and REQUESTS_CA_BUNDLE, SSL_CERT_FILE, CURL_CA_BUNDLE and
            NODE_EXTRA_CA_CERTS its TLS root (the certs folder's tls-root.pem), so one command
            starts a backend on iapsim's clock and network.
            """,
        arguments: [
            .init("action", kind: .word(["advance", "set", "freeze", "run", "reset", "exec"])),
            .init("duration", kind: .duration),
        ],
        options: [
            OptionSpec(name: "to", valueName: "DATE", help: "With advance: move to this ISO 8601 date."),
            OptionSpec(
                name: "serve-port-file", valueName: "FILE",
                help:
                    "With exec: route the program's HTTPS to the serve whose port file this is, trusting its TLS root."),
        ],
        examples: [
            "iapsim clock", "iapsim clock advance P1M", "iapsim clock advance --to 2099-01-01T00:00:00Z",
            "iapsim clock freeze", "iapsim clock exec -- date",
            "iapsim serve --port-file serve.port & sleep 1; iapsim clock exec --serve-port-file serve.port -- "
                + "curl -s https://api.storekit-sandbox.itunes.apple.com/inApps/v1/transactions/1; kill %1",
        ])

    let action: Action

    enum Action: Equatable {
        case show
        /// Forward by a duration on the Gregorian calendar in UTC.
        case advance(DateComponents)
        case set(Date)
        case freeze, run, reset
        /// Runs a program on the simulated clock; with the port file of a `serve`, its HTTPS
        /// goes there.
        case exec([String], servePortFile: String?)
    }

    init(_ words: ParsedWords) throws(UsageError) {
        func parsedDate(_ text: String) throws(UsageError) -> Date {
            guard let date = ISO8601Date.date(text) else {
                throw words.error(ClockError.invalidDate(text).errorDescription ?? text)
            }
            return date
        }
        let arguments = words.arguments
        let verb = arguments.first
        let date = words.value("to")
        if date != nil, verb != "advance" { throw words.error("--to goes with 'iapsim clock advance --to DATE'") }
        let servePortFile = words.value("serve-port-file")
        if servePortFile != nil, verb != "exec" {
            throw words.error("--serve-port-file goes with 'iapsim clock exec --serve-port-file FILE -- COMMAND'")
        }
        switch verb {
        case nil:
            action = .show
        case "advance":
            if let date {
                try words.expect(count: 1)
                action = .set(try parsedDate(date))
                return
            }
            guard arguments.count == 2 else {
                throw words.error("usage: iapsim clock advance DURATION (e.g. P1M) or --to DATE")
            }
            guard let components = ISODuration.components(arguments[1]) else {
                throw words.error(ClockError.invalidDuration(arguments[1]).errorDescription ?? "")
            }
            action = .advance(components)
        case "set":
            guard arguments.count == 2 else { throw words.error("usage: iapsim clock set DATE") }
            action = .set(try parsedDate(arguments[1]))
        case "exec":
            guard arguments.count >= 2, !arguments[1].isEmpty else {
                throw words.error("usage: iapsim clock exec -- COMMAND [ARG...]")
            }
            action = .exec(Array(arguments.dropFirst()), servePortFile: servePortFile)
        case "freeze", "run", "reset":
            try words.expect(count: 1)
            action = verb == "freeze" ? .freeze : verb == "run" ? .run : .reset
        case let other?:
            throw words.error("unknown clock action '\(other)'; use advance, set, freeze, run or reset")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        if case .exec(let command, let portFile) = action { return try exec(command, portFile, in: context) }
        let (_, session) = try context.catalogAndSession()
        switch action {
        case .show: break
        case .advance(let components): _ = try session.advanceClock(by: components)
        case .set(let date): _ = try session.setClock(to: date)
        case .freeze: _ = try session.freezeClock(true)
        case .run: _ = try session.freezeClock(false)
        case .reset: _ = try session.resetClock()
        case .exec: break
        }
        let reading = try session.clockReading()
        let mode = reading.frozen ? "frozen" : "running, \(reading.rate.name)"
        return Report(
            json: .object([
                ("date", .date(reading.now)), ("frozen", .bool(reading.frozen)),
                ("timeRate", .string(reading.rate.name)),
            ]),
            lines: ["\(ISO8601Date.string(reading.now)) (\(mode))"])
    }
}

extension Clock {
    /// The variables that send a program's HTTPS to a running `serve` (its port file) and make
    /// it trust the TLS root `serve` answers Apple's hosts with: Python (requests, urllib),
    /// curl, Node, Ruby and Go read them.
    static func proxyEnvironment(_ portFile: String, in context: CommandContext) throws -> [String: String] {
        let path = context.absolutePath(portFile)
        guard let data = FileManager().contents(atPath: path),
            let port = UInt16(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            port > 0
        else {
            throw UsageError(
                "--serve-port-file \(portFile): no port there; start 'iapsim serve --port-file \(portFile)' first",
                command: spec.name)
        }
        let directory = try context.certsDirectory()
        _ = try TLSServerChain.loadOrCreate(in: directory, lockTimeout: try context.stateStore().location.lockTimeout)
        let root = directory + "/" + TLSServerChain.fileNames[0]
        let proxy = "http://127.0.0.1:\(port)"
        return [
            "HTTPS_PROXY": proxy, "https_proxy": proxy, "REQUESTS_CA_BUNDLE": root, "SSL_CERT_FILE": root,
            "CURL_CA_BUNDLE": root, "NODE_EXTRA_CA_CERTS": root,
        ]
    }

    /// Runs `command` with libfaketime preloaded and pointed at the state's timestamp file.
    private func exec(_ command: [String], _ servePortFile: String?, in context: CommandContext) throws -> Report {
        let base = context.base
        func failed(_ status: ExitCode, _ message: String) -> Report {
            var report = Report(status: status)
            report.errors = ["Error: " + message]
            return report
        }
        let library: String
        if let chosen = base.value(of: .libfaketime) {
            let path = base.absolutePath(chosen)
            guard FileManager().isReadableFile(atPath: path) else {
                return failed(.unavailable, "\(EnvironmentVariable.libfaketime.name)=\(chosen): no such file")
            }
            library = path
        } else if let found = Faketime.libraryCandidates(platform: base.platform).first(where: {
            FileManager().isReadableFile(atPath: $0)
        }) {
            library = found
        } else {
            return failed(
                .unavailable, "clock exec needs libfaketime: " + Faketime.installHint(platform: base.platform))
        }
        // A library the loader cannot preload is skipped with a warning, and the program then
        // runs on the real clock: refuse it instead.
        let header = FileHandle(forReadingAtPath: library).map { handle in
            defer { try? handle.close() }
            return [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        }
        if let reason = Faketime.whyNotLoadable(header: header ?? [], platform: base.platform) {
            return failed(.unavailable, "clock exec: \(library) cannot be preloaded: \(reason)")
        }
        let (_, session) = try context.catalogAndSession()
        let file = try session.clockFile()
        var environment = Faketime.environment(
            base.environment, library: library, timestampFile: file, platform: base.platform)
        if let servePortFile {
            environment.merge(try Self.proxyEnvironment(servePortFile, in: context)) { _, new in new }
        }
        do {
            var report = Report()
            report.programStatus = try ChildProcess.run(command, environment: environment)
            return report
        } catch .notFound(let name) {
            return failed(.commandNotFound, "clock exec: \(name): command not found")
        } catch .cannotRun(let name, let reason) {
            return failed(.cannotRun, "clock exec: \(name): \(reason)")
        }
    }
}
