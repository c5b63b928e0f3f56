import Foundation
import IAPSimJSON

/// Why the state could not be read or written. Every case names the file.
public enum StateError: Error, Equatable, Sendable {
    /// The state file exists but is not a state file this iapsim can read. It is left as it is.
    case corrupt(path: String, detail: String)
    /// The state file was written by a newer iapsim. It is left as it is.
    case newerSchema(path: String, version: Int)
    /// A change would write what the reader refuses (`detail` says what): nothing was
    /// written, and the state is as it was. A bug in iapsim: a value was not checked where it
    /// came in.
    case unwritable(path: String, detail: String)
    /// The state folder or file could not be created (permissions, read-only file system).
    case cannotCreate(path: String, reason: String)
    /// The state file exists but cannot be read (permissions, not a folder, a path too long).
    case unreadable(path: String, reason: String)
    /// Reading or writing failed half-way (disk full, I/O error). The previous state is intact.
    case io(path: String, reason: String)
    /// Another iapsim held the lock for longer than the timeout.
    case busy(path: String, seconds: Double)
    /// Nowhere to keep state: no `--state-dir`, `IAPSIM_STATE_DIR`, `XDG_CONFIG_HOME` or `HOME`.
    case noStateDirectory
    /// `IAPSIM_LOCK_TIMEOUT` is not a number of seconds.
    case invalidLockTimeout(value: String)
    /// `--account` or `IAPSIM_ACCOUNT` (`origin`) names no possible customer.
    case invalidAccountName(value: String, origin: String)
    /// `accounts remove` named a customer the store does not have.
    case unknownAccount(name: String)
    /// `accounts remove default`: the customer `default` is always there.
    case permanentAccount(name: String)
    /// A new customer's name differs only in case from one the store has (`existing`): on a
    /// case-insensitive file system the two would share a folder and a history.
    case accountNameTaken(name: String, existing: String)
    /// A commit intent a crash left reads, but is not one iapsim could have written (`reason`):
    /// nothing of it was done, and it was moved to `keptAt`. The state is as it was committed.
    case rejectedIntent(path: String, keptAt: String, reason: String)
}

extension StateError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .corrupt(let path, let detail):
            "\(path): not a valid iapsim state file (\(detail)); it was left untouched: move it away or fix it"
        case .unwritable(let path, let detail):
            "\(path): refused to write a state that would not read back (\(detail)); the state is as it was"
        case .newerSchema(let path, let version):
            "\(path): written by a newer iapsim (schema \(version), this one reads up to "
                + "\(PurchaseState.currentSchemaVersion)); it was left untouched"
        case .cannotCreate(let path, let reason):
            "\(path): cannot create: \(reason)"
        case .unreadable(let path, let reason):
            "\(path): cannot read the state: \(reason)"
        case .io(let path, let reason):
            "\(path): \(reason); the previous state is intact"
        case .busy(let path, let seconds):
            "\(path): another iapsim held the lock for \(seconds.formatted()) s; try again or raise IAPSIM_LOCK_TIMEOUT"
        case .noStateDirectory:
            "no place for the state file: HOME is not set; pass --state-dir DIR or set IAPSIM_STATE_DIR"
        case .invalidLockTimeout(let value):
            "IAPSIM_LOCK_TIMEOUT=\(value): expected a number of seconds such as 10 or 0.5"
        case .invalidAccountName(let value, let origin):
            "\(origin) \(value): not a customer name; use \(AccountName.rule)"
        case .unknownAccount(let name):
            "no customer named \(name) in this store; 'iapsim accounts' lists them"
        case .rejectedIntent(let path, let kept, let reason):
            "\(path): a commit intent left by an interrupted change is not one iapsim writes (\(reason)); nothing of"
                + " it was done, the state is as last committed, and the intent was moved to \(kept)"
        case .accountNameTaken(let name, let existing):
            "the store has the customer \(existing), and \(name) differs only in case: names are compared without"
                + " case (a case-insensitive file system would give both one folder); use --account \(existing)"
                + " or another name"
        case .permanentAccount(let name):
            "the customer \(name) cannot be removed: it is the one commands act for without --account;"
                + " 'iapsim --account \(name) reset --transactions' clears its history"
        }
    }
}

extension StateError {
    /// The state file `path` holds, read by `read` once its version (the number at
    /// `versionKey`) is one this iapsim reads: at most `newest`, and at least `oldest` when
    /// given. Every file of the state is refused the same way — not JSON, no version, a newer
    /// one, an impossible one, or contents that do not read — each a `.corrupt` or
    /// `.newerSchema` naming the file.
    static func decode<State>(
        _ data: Data, path: String, versionKey: String, newest: Int, oldest: Int? = nil,
        _ read: (Reader) throws(Reader.Failure) -> State
    ) throws(StateError) -> State {
        let json: JSONValue
        do {
            json = try JSONValue.parse([UInt8](data))
        } catch {
            throw .corrupt(
                path: path,
                detail: data.isEmpty ? "the file is empty" : "not JSON: \(error.message) at byte \(error.offset)")
        }
        guard case .number(let text) = json[versionKey] ?? .null, let version = Int(text) else {
            throw .corrupt(path: path, detail: "no \(versionKey)")
        }
        if version > newest { throw .newerSchema(path: path, version: version) }
        if let oldest, version < oldest {
            throw .corrupt(path: path, detail: "\(versionKey) \(version) is not a version iapsim wrote")
        }
        do {
            return try read(try Reader(json, at: ""))
        } catch {
            throw .corrupt(path: path, detail: error.message)
        }
    }
}
