import Foundation
import IAPSimJSON

extension JournalLine {
    /// Why `line`, about to be appended to the journal, would not read back as `transaction`,
    /// the transaction it was spelled from; nil when it does.
    ///
    /// The line is read as every later read reads it — the one pass when it takes the line,
    /// else the full parser — and compared field by field with the transaction as stored: a
    /// field the writer writes and the reader drops or reads otherwise is caught before the
    /// line is appended, never on a later read. `names` and `commitmentNames` are the one
    /// pass's, and differ only in a test that drops one.
    static func readBack(
        _ line: UnsafeBufferPointer<UInt8>, as transaction: Transaction, names: KeyNames = .transaction,
        commitmentNames: KeyNames = .commitment
    ) -> String? {
        var read = fast(line, names: names, commitmentNames: commitmentNames)
        if read == nil {
            do throws(Failure) {
                read = try parsed(line)
            } catch {
                switch error {
                case .notJSON(let message), .notTransaction(let message): return message
                }
            }
        }
        let written = transaction.asStored
        guard let read, read != written else { return nil }
        let fields = differences(read, written)
        return "it reads back as another transaction"
            + (fields.isEmpty ? "" : " (\(fields.joined(separator: "; ")))")
    }

    /// The stored fields `read` has otherwise than `written`, each as `name: written, read back as …`.
    private static func differences(_ read: Transaction, _ written: Transaction) -> [String] {
        zip(Mirror(reflecting: written).children, Mirror(reflecting: read).children).compactMap { field, readField in
            let (before, after) = (spelled(field.value), spelled(readField.value))
            return before == after ? nil : "\(field.label ?? "a field"): \(before), read back as \(after)"
        }
    }

    private static func spelled(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first.map { spelled($0.value) } ?? "nil" }
        if let text = value as? String { return "\"\(text)\"" }
        if let date = value as? Date { return ISO8601Date.string(date) }
        return "\(value)"
    }
}

extension Transaction {
    /// This transaction as its stored form reads back: the same, with each date in whole
    /// seconds within the years the format holds, as `ISO8601Date` writes it.
    var asStored: Transaction {
        var stored = self
        stored.purchaseDate = ISO8601Date.stored(purchaseDate)
        stored.originalPurchaseDate = ISO8601Date.stored(originalPurchaseDate)
        stored.expirationDate = expirationDate.map(ISO8601Date.stored)
        stored.revocationDate = revocationDate.map(ISO8601Date.stored)
        stored.deletionDate = deletionDate.map(ISO8601Date.stored)
        if let commitment = commitmentInfo {
            stored.commitmentInfo?.expirationDate = ISO8601Date.stored(commitment.expirationDate)
        }
        return stored
    }
}
