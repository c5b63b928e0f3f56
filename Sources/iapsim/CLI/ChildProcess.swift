#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs another program as `iapsim clock exec` does: with its own environment, standard input,
/// output and error inherited, in a process group of its own (as a shell runs a job), to
/// which the signals sent to iapsim are passed on: a program that starts others (`sh -c
/// 'server & worker & wait'`) has every one of them stopped with it.
enum ChildProcess {
    /// Why a program could not be started.
    enum Failure: Error {
        /// No such program on `PATH` (exit 127, as a shell says it).
        case notFound(String)
        /// Found, but it cannot be run (exit 126).
        case cannotRun(String, reason: String)
    }

    /// Runs `arguments` (the program first, looked up on `PATH`) with exactly `environment`,
    /// and waits for it. SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to iapsim are sent on to the
    /// program's process group. When iapsim runs in the terminal's foreground, the program's
    /// group takes the terminal while it runs (so Ctrl-C reaches it and it may read the
    /// terminal), and iapsim takes it back after.
    /// - Returns: its exit status, or 128 + N when signal N ended it (as a shell reports it).
    static func run(_ arguments: [String], environment: [String: String]) throws(Failure) -> Int32 {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        // The handlers are iapsim's only while the program runs: `iapsim ui` (whose page may
        // not run one, but whose process is the same) must stop on SIGTERM again afterwards.
        let saved = Forwarding.install()
        defer { Forwarding.restore(saved) }
        var pid = pid_t()
        #if canImport(Glibc)
            var attributes = posix_spawnattr_t()
        #else
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)  // a group of its own, led by the program
        let result = posix_spawnp(&pid, arguments[0], nil, &attributes, argv, envp)
        if result != 0 {
            let reason = String(cString: strerror(result))
            if result == ENOENT { throw .notFound(arguments[0]) }
            throw .cannotRun(arguments[0], reason: reason)
        }
        let foreground = Terminal.handOver(to: pid)
        defer { if foreground { Terminal.takeBack() } }
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0, errno != EINTR { return 128 + SIGKILL }
            // To the whole group: what the program started goes with it.
            for signal in Forwarding.take() { kill(-pid, signal) }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out: the C macros do not import.
        let termination = status & 0x7F
        return termination == 0 ? (status >> 8) & 0xFF : 128 + termination
    }

    /// The terminal's foreground, lent to the program's group while it runs.
    enum Terminal {
        /// Gives the terminal to `group` when iapsim has it (standard input a terminal whose
        /// foreground group is iapsim's); whether it did.
        static func handOver(to group: pid_t) -> Bool {
            guard isatty(STDIN_FILENO) != 0, tcgetpgrp(STDIN_FILENO) == getpgrp() else { return false }
            let previous = signal(SIGTTOU, SIG_IGN)
            defer { signal(SIGTTOU, previous) }
            guard tcsetpgrp(STDIN_FILENO, group) == 0 else { return false }
            kill(-group, SIGCONT)  // in case it read the terminal before it had it
            return true
        }

        /// Takes the terminal back for iapsim's own group.
        static func takeBack() {
            let previous = signal(SIGTTOU, SIG_IGN)
            defer { signal(SIGTTOU, previous) }
            tcsetpgrp(STDIN_FILENO, getpgrp())
        }
    }

    /// The signals iapsim caught while its program runs, waiting to be passed on. A signal
    /// handler can touch nothing but such flags.
    enum Forwarding {
        static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        nonisolated(unsafe) private static var pending: (sig_atomic_t, sig_atomic_t, sig_atomic_t, sig_atomic_t) = (
            0, 0, 0, 0
        )

        /// Installs the forwarding handlers and returns the ones they replaced.
        static func install() -> [(Int32, sigaction)] {
            var saved: [(Int32, sigaction)] = []
            for signal in signals {
                var action = sigaction()
                #if canImport(Glibc)
                    action.__sigaction_handler.sa_sigaction = { number, info, _ in Forwarding.caught(number, info) }
                #else
                    action.__sigaction_u.__sa_sigaction = { number, info, _ in Forwarding.caught(number, info) }
                #endif
                action.sa_flags = SA_SIGINFO
                sigemptyset(&action.sa_mask)
                var previous = sigaction()
                sigaction(signal, &action, &previous)
                saved.append((signal, previous))
            }
            return saved
        }

        /// Puts back the handlers `install` replaced.
        static func restore(_ saved: [(Int32, sigaction)]) {
            for (signal, previous) in saved {
                var action = previous
                sigaction(signal, &action, nil)
            }
        }

        /// Remembers `number`, to pass on: the program's group is not iapsim's, so a signal
        /// the terminal sent iapsim's group did not reach it either.
        private static func caught(_ number: Int32, _ info: UnsafeMutablePointer<siginfo_t>?) {
            switch number {
            case SIGINT: pending.0 = 1
            case SIGTERM: pending.1 = 1
            case SIGHUP: pending.2 = 1
            default: pending.3 = 1
            }
        }

        /// The signals caught since the last call.
        static func take() -> [Int32] {
            var taken: [Int32] = []
            if pending.0 != 0 {
                pending.0 = 0
                taken.append(SIGINT)
            }
            if pending.1 != 0 {
                pending.1 = 0
                taken.append(SIGTERM)
            }
            if pending.2 != 0 {
                pending.2 = 0
                taken.append(SIGHUP)
            }
            if pending.3 != 0 {
                pending.3 = 0
                taken.append(SIGQUIT)
            }
            return taken
        }
    }
}
