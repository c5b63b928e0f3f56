/// What an intent that reads must still be to be acted on: one iapsim could have written. A
/// corrupt but parseable intent (a bit flipped on disk, a hand edit, another program's file)
/// was acted on as it was: it could cut a journal back to nothing, name a file that cannot be
/// cut (wedging every later write), or rename itself over `store.json`. Before recovery acts,
/// an intent is checked here: it names only files a change writes, each where a change
/// writes it, and offsets within the marks — an append starts no earlier than the committed
/// mark of its file and ends at the mark the intent's own snapshot or `store.json` gives it.
/// One that fails is kept aside, untouched, and said (`StateError.rejectedIntent`).
extension StateCommit {
    /// Why an intent was not acted on.
    struct Rejection: Error, Equatable {
        var reason: String
    }

    /// The marks the intent itself carries, when its snapshot and `store.json` read.
    struct IntentMarks: Equatable {
        /// The new snapshot's journal length (`account.journalLength`).
        var journal: UInt64?
        /// The new outbox length (`store.json`'s, or, in a format-1 intent, the snapshot's).
        var outbox: UInt64?
    }

    /// Checks the intent's targets and offsets.
    /// - Parameters:
    ///   - marks: the intent's own marks (nil members when its snapshot or store does not read:
    ///     then only the committed bounds are checked, since such an intent is rolled back).
    ///   - committed: the committed length of a file the intent appends to (its customer's
    ///     snapshot's journal mark, `store.json`'s outbox mark), or nil when it cannot be told.
    /// - Throws: `Rejection` saying what is wrong.
    func validate(marks: IntentMarks, committed: (String) -> UInt64?) throws(Rejection) {
        if let snapshot {
            guard let folder = Self.customerFolder(of: snapshot), snapshot == folder + StateLocation.fileName else {
                throw Rejection(reason: "it would replace \(snapshot), which is not a customer's snapshot")
            }
        }
        var appended: Set<String> = []
        for effect in effects {
            switch effect {
            case .append(let file, let from, let to, _):
                guard appended.insert(file).inserted else { throw Rejection(reason: "it appends to \(file) twice") }
                guard from <= to else {
                    throw Rejection(reason: "its append to \(file) ends (\(to)) before it starts (\(from))")
                }
                let mark: UInt64?
                if file == StateLocation.notificationsFileName {
                    mark = marks.outbox
                } else if let folder = Self.customerFolder(of: file), file == folder + StateLocation.journalFileName {
                    // A customer's journal grows with that customer's snapshot, which marks its end.
                    guard snapshot == folder + StateLocation.fileName else {
                        throw Rejection(reason: "it appends to \(file) without that customer's snapshot")
                    }
                    mark = marks.journal
                } else {
                    throw Rejection(reason: "it would append to \(file), which is not a journal")
                }
                if let mark, to != mark {
                    throw Rejection(reason: "its append to \(file) ends at \(to), and its own mark says \(mark)")
                }
                // Undoing it cuts the file back to `from`: never into what is committed. An
                // intent already applied (its end is the committed mark) is only rolled forward.
                if let done = committed(file), from < done, to != done {
                    throw Rejection(
                        reason: "its append to \(file) starts at \(from), before the committed \(done) bytes")
                }
            case .remove(let file):
                guard Self.isRemovable(file) else {
                    throw Rejection(reason: "it would remove \(file), which no change removes")
                }
            }
        }
    }

    /// The folder (relative, ending in `/`; empty for the top) of a customer's file: the top
    /// of the state folder (`default`) or `accounts/NAME/`; nil for any other place.
    static func customerFolder(of file: String) -> String? {
        let parts = file.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch parts.count {
        case 1: return ""
        case 3
        where parts[0] == StateLocation.accountsFolderName && AccountName.isValid(parts[1])
            && parts[1] != StateLocation.defaultAccount:
            return parts[0] + "/" + parts[1] + "/"
        default: return nil
        }
    }

    /// The files a change may remove: a customer's snapshot, journal and index (an account
    /// removal, a reset, an erase), and the app's outbox, `store.json` and `customers.json`
    /// (an erase).
    static func isRemovable(_ file: String) -> Bool {
        guard let folder = customerFolder(of: file) else { return false }
        let name = String(file.dropFirst(folder.count))
        let own = [StateLocation.fileName, StateLocation.journalFileName, StateLocation.indexFileName]
        let app = [
            StateLocation.notificationsFileName, StateLocation.appStateFileName, StateLocation.customersFileName,
        ]
        return own.contains(name) || (folder.isEmpty && app.contains(name))
    }

    /// Where a rejected intent is kept: beside it, for whoever looks into it.
    static func rejectedPath(of intentPath: String) -> String { intentPath + ".rejected" }
}
