/// The exit codes, documented in docs/SCRIPTING.md and `iapsim help exit-codes`. The 64–75 range
/// follows BSD's sysexits.h, as swift-argument-parser and other Unix tools do.
enum ExitCode: Int32, CaseIterable {
    case success = 0
    /// The purchase failed (a simulated `SKError`).
    case purchaseFailed = 1
    /// The buyer said no at the confirmation (`SKError.paymentCancelled`, `.userCancelled`).
    case cancelled = 2
    /// The purchase is waiting for Ask to Buy approval (`SKPaymentTransactionState.deferred`).
    case pending = 3
    /// Payments are not allowed (`SKPaymentQueue.canMakePayments()` is false).
    case notAllowed = 4
    /// The store has no such product (`SKError.storeProductNotAvailable`), or it is not
    /// family shareable and `buy --as-family-member` asked to share it.
    case notAvailable = 5
    /// An interrupted purchase: it ended unsuccessfully and is kept until its issue is
    /// resolved, when a new transaction arrives through `Transaction.updates`.
    case interrupted = 6
    /// `listen --drain`, `notifications resend`: an attempt failed (the webhook did not answer
    /// 200–206); each is recorded, and `notifications resend` posts it again.
    case undelivered = 7
    case usage = 64
    case dataError = 65
    case noInput = 66
    /// A tool iapsim needs is not installed: libfaketime for `clock exec` (`EX_UNAVAILABLE`).
    case unavailable = 69
    /// An error iapsim did not expect: a bug (`EX_SOFTWARE`).
    case internalError = 70
    case cannotCreate = 73
    case ioError = 74
    case busy = 75
    /// `clock exec`: the program was found but cannot be run (as a shell says it).
    case cannotRun = 126
    /// `clock exec`: no such program (as a shell says it).
    case commandNotFound = 127

    var meaning: String {
        switch self {
        case .success: "success"
        case .purchaseFailed: "the purchase failed with a simulated error (also load products, App Store sync)"
        case .cancelled: "cancelled by the user"
        case .pending: "pending: an Ask to Buy request waits for approval (24 hours at most)"
        case .notAllowed: "payments not allowed"
        case .notAvailable: "product not available (with --as-family-member: not family shareable)"
        case .interrupted:
            "interrupted: the purchase failed until the buyer resolves its issue ('iapsim resolve ID' makes a new transaction)"
        case .undelivered:
            "listen --drain, notifications resend: a delivery failed (recorded; 'notifications resend --failed' "
                + "posts again)"
        case .usage:
            "usage error (unknown command, option or setting; bad value; a transaction not in the needed state)"
        case .dataError: "bad data: a catalog file or the state file cannot be used"
        case .noInput: "a catalog file or the state file is missing or cannot be read"
        case .unavailable: "clock exec: libfaketime is not installed (the error says what to install)"
        case .internalError: "internal error: a bug in iapsim (please report it)"
        case .cannotCreate: "cannot create the state folder or file, or a file asked for (never through a symlink)"
        case .ioError:
            "I/O error: the state could not be written (the previous state is intact), or the output could not be "
                + "(what the command did is saved); listen stops when it cannot record an attempt"
        case .busy:
            "state busy: another iapsim held the lock past IAPSIM_LOCK_TIMEOUT, or another listen delivers the "
                + "notifications"
        case .cannotRun: "clock exec: the program cannot be run (otherwise clock exec exits with the program's status)"
        case .commandNotFound: "clock exec: no such program"
        }
    }
}
