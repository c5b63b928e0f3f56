import Foundation
import IAPSimJSON

/// Reading the two journals: transactions replayed over a snapshot, and the notifications
/// journal's records.
extension StateStore {
    /// Every notification and delivery attempt in the notifications journal, oldest first.
    public func notificationRecords() throws(StateError) -> [Outbox.Record] {
        var records: [Outbox.Record] = []
        try forEachNotificationRecord { records.append($0) }
        return records
    }

    /// Calls `body` with each record of the notifications journal, oldest first, holding one
    /// at a time.
    public func forEachNotificationRecord(_ body: (Outbox.Record) -> Void) throws(StateError) {
        try forEachNotificationRecord(from: 0) { record, _ in body(record) }
    }

    /// Calls `body` with each whole record of the notifications journal from byte `offset`,
    /// and the offset just past it.
    func forEachNotificationRecord(from offset: UInt64, _ body: (Outbox.Record, UInt64) -> Void)
        throws(StateError)
    {
        try settleInterruptedCommit()
        cache.countNotificationJournalRead()
        var lines = 0
        defer { cache.countNotificationLinesRead(lines) }
        try forEachLine(of: location.notificationsPath, from: offset, what: "a notification", parse: Outbox.Record.init)
        {
            record, end in
            lines += 1
            body(record, end)
        }
    }

    /// Counts notification lines past the snapshot's mark, written by a change whose snapshot
    /// a crash interrupted: they belong to the transactions replayed with them.
    func replayNotifications(into state: inout PurchaseState) throws(StateError) {
        var outbox = state.outbox
        try forEachLine(
            pastMark: outbox.journalLength, of: location.notificationsPath, what: "a notification",
            parse: Outbox.Record.init
        ) { record, end in
            if case .notification = record { outbox.count += 1 }
            outbox.journalLength = end
        }
        state.outbox = outbox
    }

    /// Replays journal lines past the snapshot's mark: a crash came between appending them
    /// and writing the snapshot. New transactions are delivered to the app's record.
    func replayJournal(into state: inout PurchaseState) throws(StateError) {
        guard (FileSystem.size(location.journalPath) ?? 0) != state.account.journalLength else { return }
        var replayed = state
        var overflow: PurchaseState.Overflow?
        var bereft: [String] = []  // products a replayed deletion took the latest transaction of
        try forEachLine(
            pastMark: state.account.journalLength, of: location.journalPath, what: "a transaction",
            parse: Transaction.init
        ) { transaction, end in
            guard overflow == nil else { return }
            do throws(PurchaseState.Overflow) {
                if transaction.deletionDate != nil, replayed.account.current(id: transaction.id) != nil {
                    bereft.append(transaction.productID)
                }
                let isNew = transaction.id >= replayed.account.nextTransactionID
                try replayed.account.record(transaction, isNew: isNew)
                if isNew {
                    replayed.account.nextTransactionID = try PurchaseState.adding(
                        1, to: transaction.id, field: "the journal's transaction \(transaction.id): the next id")
                    if transaction.productType == .consumable {
                        try replayed.app.add(transaction.purchasedQuantity, of: transaction.productID)
                    } else if transaction.revocationDate == nil {
                        replayed.app.deliver(transaction.productID)
                    }
                }
            } catch {
                overflow = error
            }
            replayed.account.journalLength = end
        }
        if let overflow { throw .corrupt(path: location.journalPath, detail: overflow.detail) }
        // A deletion's product falls back on its newest transaction left, which the index
        // (rebuilt from the journal, deletions and all) finds; the app loses what it no longer
        // has, as `currentEntitlements` tells it at launch.
        for productID in bereft {
            let replacement: Transaction?
            do {
                replacement = try latestTransaction(productID: productID, excluding: [])
            } catch let error as StateError {
                throw error
            } catch {
                throw .corrupt(path: location.journalPath, detail: "\(error)")
            }
            if let replacement { replayed.account.reinstate(replacement) }
            if replacement.map({ $0.revocationDate == nil && !$0.isUpgraded }) != true {
                replayed.app.revoke(productID)
            }
        }
        replayed.account.unsaved = []
        state = replayed
    }

    /// Calls `body` with each complete line a snapshot does not include yet — past its `mark`
    /// in the journal at `path` — and the offset just past it: what a crash left between
    /// appending and committing. A file shorter than its mark lost committed lines.
    /// - Throws: `StateError.corrupt` naming the file when it is shorter than the mark.
    private func forEachLine<Item>(
        pastMark mark: UInt64, of path: String, what: String, parse: (Reader) throws(Reader.Failure) -> Item,
        _ body: (Item, UInt64) -> Void
    ) throws(StateError) {
        let size = FileSystem.size(path) ?? 0
        if size < mark {
            throw .corrupt(path: path, detail: "it is \(size) bytes but \(StateLocation.fileName) includes \(mark)")
        }
        guard size > mark else { return }
        try forEachLine(of: path, from: mark, what: what, parse: parse, body)
    }

    /// Calls `body` with each complete line of the JSONL file at `path` from byte `offset`
    /// on, parsed by `parse`, and the offset just past it; a piece at a time.
    private func forEachLine<Item>(
        of path: String, from offset: UInt64, what: String, parse: (Reader) throws(Reader.Failure) -> Item,
        _ body: (Item, UInt64) -> Void
    ) throws(StateError) {
        let file: JournalFile?
        do {
            file = try JournalFile(path: path)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        do {
            try file?.forEachLine(from: offset) { (line, position) throws(StateError) in
                guard !line.isEmpty else { return }
                do {
                    let json = try JSONValue.parse(Array(line))
                    body(try parse(try Reader(json, at: "")), position)
                } catch let error as JSONValue.SyntaxError {
                    throw .corrupt(
                        path: path, detail: "the line ending at byte \(position) is not JSON: \(error.message)")
                } catch {
                    throw .corrupt(
                        path: path,
                        detail:
                            "the line ending at byte \(position) is not \(what): \((error as? Reader.Failure)?.message ?? "\(error)")"
                    )
                }
            }
        } catch {
            switch error {
            case .io(let failure): throw .unreadable(path: path, reason: failure.reason)
            case .missing: break
            case .body(let error): throw error
            }
        }
    }
}
