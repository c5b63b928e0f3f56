import Foundation
import IAPSimJSON

/// The customers of the store other than `default`, in `customers.json` at the top of the
/// state folder: each name with its number, from which its transaction identifiers start
/// (`PurchaseState.Account.customerNumber`). Numbers are never given twice, so a removed
/// customer's identifiers never come back: not even to the same name after a crash, since a
/// customer being removed is marked so here before its files go, and that name, added again,
/// gets a new number. Names compare without case, as a case-insensitive file
/// system compares their folders. A command for one customer reads this file only when it
/// adds the customer; `serve` reads it to find whose a transaction is.
struct CustomerRegistry: Equatable, Sendable {
    struct Entry: Equatable, Sendable {
        var name: String
        var number: UInt64
        /// Set before a removal deletes the customer's files, cleared with the entry: a crash
        /// in between leaves a customer listed as being removed, whom no request reaches.
        var removing = false
    }

    var entries: [Entry] = []
    var nextNumber: UInt64 = 1

    /// The largest customer number: its identifiers, up to `(number + 1) × idsPerCustomer`,
    /// still fit in 64 bits.
    static let maximumNumber = UInt64.max / PurchaseState.Account.idsPerCustomer - 1

    /// The entry named exactly `name`.
    func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// An entry whose name is `name` but for case (`Bob` for `bob`): on a case-insensitive
    /// file system the two would share a folder.
    func caseVariant(of name: String) -> Entry? {
        let lowered = name.lowercased()
        return entries.first { $0.name != name && $0.name.lowercased() == lowered }
    }

    func number(of name: String) -> UInt64? { entries.first { $0.name == name && !$0.removing }?.number }

    func name(of number: UInt64) -> String? {
        if number == 0 { return StateLocation.defaultAccount }
        // Numbers are given in order and never again: a binary search finds one among many.
        var (low, high) = (0, entries.count)
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].number < number { low = middle + 1 } else { high = middle }
        }
        guard low < entries.count, entries[low].number == number, !entries[low].removing else { return nil }
        return entries[low].name
    }

    var json: JSONValue {
        .object([
            ("nextNumber", .int(nextNumber)),
            (
                "customers",
                .array(
                    entries.map {
                        .object(
                            [("name", .string($0.name)), ("number", .int($0.number))]
                                + ($0.removing ? [("removing", .bool(true))] : []))
                    })
            ),
        ])
    }

    init() {}

    init(_ r: Reader) throws(Reader.Failure) {
        nextNumber = try r.required("nextNumber").uint64()
        entries = try r.required("customers").array { item throws(Reader.Failure) in
            let name = try item.required("name").string()
            guard AccountName.isValid(name), name != StateLocation.defaultAccount else {
                throw Reader.Failure(message: "customers: \(name) is not a customer name")
            }
            return Entry(
                name: name, number: try item.required("number").uint64(),
                removing: try item.optional("removing")?.bool() ?? false)
        }
        // A number past this would overflow its identifiers (a trap, not an error).
        guard nextNumber >= 1, nextNumber <= Self.maximumNumber + 1 else {
            throw Reader.Failure(message: "nextNumber \(nextNumber) is not from 1 to \(Self.maximumNumber + 1)")
        }
        guard entries.allSatisfy({ $0.number > 0 && $0.number < nextNumber }) else {
            throw Reader.Failure(message: "a customer's number is not below nextNumber")
        }
        entries.sort { $0.number < $1.number }  // as iapsim writes them; a hand edit may not
        guard Set(entries.map { $0.name.lowercased() }).count == entries.count,
            Set(entries.map(\.number)).count == entries.count
        else { throw Reader.Failure(message: "two customers share a name (case aside) or a number") }
    }

    static func read(_ path: String) throws(StateError) -> CustomerRegistry {
        let data: Data?
        do {
            data = try POSIXFile.readIfPresent(path)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        guard let data else { return CustomerRegistry() }
        do {
            return try CustomerRegistry(try Reader(try JSONValue.parse([UInt8](data)), at: ""))
        } catch let error as JSONValue.SyntaxError {
            throw .corrupt(path: path, detail: "not JSON: \(error.message)")
        } catch {
            throw .corrupt(path: path, detail: (error as? Reader.Failure)?.message ?? "\(error)")
        }
    }

    func write(to path: String) throws(StateError) {
        do {
            try POSIXFile.writeAtomically(Data(json.bytes() + [0x0A]), to: path)
        } catch {
            throw error.storeError
        }
    }
}

extension StateStore {
    /// The same store, acting for the customer `name`.
    public func forAccount(_ name: String) -> StateStore {
        name == location.account ? self : StateStore(location: location.forAccount(name))
    }

    /// The store's customers other than `default`, in the order they were added: those whole,
    /// not one half-added or half-removed (`accountEntries()`), which no operation should bring
    /// up to date or answer for.
    public func accountNames() throws(StateError) -> [String] {
        try accountEntries().filter { $0.condition == .complete }.map(\.name)
    }

    /// Where a customer stands in `customers.json`.
    public enum AccountCondition: String, Sendable, Equatable {
        /// Its number and its snapshot are there.
        case complete
        /// Its number is there and its snapshot not yet: an `accounts add` (or a first
        /// command for it) a crash interrupted. The next command for it adds it anew.
        case adding
        /// A removal began and a crash interrupted it: `accounts remove NAME` finishes it.
        case removing
    }

    /// Every customer `customers.json` names other than `default`, in the order they were
    /// added, each with its condition.
    public func accountEntries() throws(StateError) -> [(name: String, number: UInt64, condition: AccountCondition)] {
        try CustomerRegistry.read(location.customersPath).entries.map { entry in
            let condition: AccountCondition =
                entry.removing
                ? .removing : FileSystem.exists(location.forAccount(entry.name).statePath) ? .complete : .adding
            return (entry.name, entry.number, condition)
        }
    }

    /// Whose the transaction `id` is: the customer its number range belongs to, if the store
    /// has that customer. Reads `customers.json` alone.
    public func account(ofTransaction id: UInt64) throws(StateError) -> String? {
        guard id > 0 else { return nil }
        return try CustomerRegistry.read(location.customersPath).name(
            of: PurchaseState.Account.customerNumber(ofTransaction: id))
    }

    /// Whether the customer this store acts for exists: `default` always does.
    public var accountExists: Bool {
        location.account == StateLocation.defaultAccount || FileSystem.exists(location.statePath)
    }

    /// Adds the customer this store acts for, unless the store has it: a number in
    /// `customers.json` first, then its snapshot, which starts its identifiers after the
    /// number's range. A crash between the two leaves the number, which the next attempt takes.
    /// - Returns: whether the customer was added.
    @discardableResult
    public func addAccount() throws -> Bool {
        guard !accountExists else { return false }
        do {
            try POSIXFile.makeDirectory(location.directory)
        } catch {
            throw StateError.cannotCreate(path: error.path, reason: error.reason)
        }
        return try holdingLock {
            guard !FileSystem.exists(location.statePath) else { return false }
            var registry = try CustomerRegistry.read(location.customersPath)
            if let other = registry.caseVariant(of: location.account) {
                throw StateError.accountNameTaken(name: location.account, existing: other.name)
            }
            let number: UInt64
            if let stale = registry.entry(location.account), !stale.removing {
                // An add a crash interrupted before the snapshot: no identifier came from its
                // number (a transaction needs the snapshot), so this attempt takes it, and a
                // retry leaves exactly what one whole run leaves.
                number = stale.number
            } else {
                // A removal a crash interrupted: its number gave identifiers, so it is dropped,
                // never given again, and the removal's remains are cleared first.
                if registry.entry(location.account) != nil {
                    _ = try removeCustomerFiles()
                    registry.entries.removeAll { $0.name == location.account }
                }
                guard registry.nextNumber <= CustomerRegistry.maximumNumber else {
                    throw StateError.unwritable(
                        path: location.customersPath,
                        detail: "every customer number up to \(CustomerRegistry.maximumNumber) is taken")
                }
                number = registry.nextNumber
                registry.nextNumber += 1
                registry.entries.append(.init(name: location.account, number: number))
                try registry.write(to: location.customersPath)
            }
            do throws(POSIXFile.Failure) {
                try POSIXFile.makeDirectory(location.accountDirectory)
            } catch {
                throw StateError.cannotCreate(path: error.path, reason: error.reason)
            }
            // The app's state moves out of `default`'s snapshot before another customer shares it.
            let current = try read()
            if !FileSystem.exists(location.appStatePath) {
                // The first customer beside `default`: the app's state moves out of `default`'s
                // snapshot into `store.json`, and that snapshot is written as schema 5, which an
                // iapsim that knows no customers refuses rather than run a clock of its own.
                let owner = forAccount(StateLocation.defaultAccount)
                var root = try owner.read()
                try owner.write(&root, index: nil)
            }
            var account = PurchaseState.Account(nextTransactionID: number * PurchaseState.Account.idsPerCustomer + 1)
            account.customerNumber = number
            var state = PurchaseState(account: account, app: .init(), simulation: Self.appOnly(current.simulation))
            state.outbox = current.outbox
            try write(&state, index: nil)
            return true
        }
    }

    /// The customer's simulation with nothing but the app's values in it.
    private static func appOnly(_ simulation: SimulationState) -> SimulationState {
        var fresh = SimulationState()
        fresh.clock = simulation.clock
        for key in simulation.settings.keys where key.isAppWide { fresh.settings.take(key, from: simulation.settings) }
        return fresh
    }

    func addAccountIfNeeded() throws {
        if !accountExists { try addAccount() }
    }

    /// Removes the customer this store acts for: its snapshot, journal and index, and its
    /// name. Its notifications stay in the app's outbox, as Apple's notification history keeps
    /// them; its identifiers are never given again.
    /// - Returns: the paths removed.
    /// - Throws: `StateError.permanentAccount` for `default`, `.unknownAccount` for a name the
    ///   store does not have.
    public func removeAccount() throws -> [String] {
        guard location.account != StateLocation.defaultAccount else {
            throw StateError.permanentAccount(name: location.account)
        }
        guard FileSystem.exists(location.directory) else { throw StateError.unknownAccount(name: location.account) }
        return try holdingLock {
            var registry = try CustomerRegistry.read(location.customersPath)
            // Only a name the registry holds, exactly: on a case-insensitive file system
            // `bob`'s folder is `Bob`'s, and removing it would delete Bob's history.
            guard let index = registry.entries.firstIndex(where: { $0.name == location.account }) else {
                throw StateError.unknownAccount(
                    name: registry.caseVariant(of: location.account).map {
                        "\(location.account) (the store has \($0.name); names are compared without case)"
                    } ?? location.account)
            }
            // The name is marked first, then the files go in one commit, then the name: a crash
            // leaves a customer listed as being removed, whom no request reaches, and whose
            // number a later customer of that name does not get.
            if !registry.entries[index].removing {
                registry.entries[index].removing = true
                try registry.write(to: location.customersPath)
            }
            let removed = try removeCustomerFiles()
            registry.entries.removeAll { $0.name == location.account }
            try registry.write(to: location.customersPath)
            return removed
        }
    }

    /// Removes the customer's snapshot, journal and index in one commit, the temporary files
    /// crashes left beside them, and its folder once empty. Under the lock.
    /// - Returns: the paths removed.
    private func removeCustomerFiles() throws -> [String] {
        let files = [location.journalPath, location.indexPath, location.statePath]
        var removed = files.filter(FileSystem.entryExists)
        if !removed.isEmpty { try commit(snapshot: nil, appends: [], removals: files.map(name(of:))) }
        do throws(POSIXFile.Failure) {
            removed += try POSIXFile.removeTemporaries(of: location.statePath)
            removed += try POSIXFile.removeTemporaries(of: location.indexPath)
        } catch {
            throw error.storeError
        }
        removed += removeAccountFolders([location])
        return removed
    }

    /// The customers other than `default` whose folders are in `accounts/`, by name.
    func accountFolders() -> [StateLocation] {
        ((try? FileManager.default.contentsOfDirectory(atPath: location.accountsDirectory)) ?? [])
            .filter(AccountName.isValid).sorted().map(location.forAccount)
    }

    /// Removes the folders of `customers` that are empty now, and `accounts/` when it is.
    /// - Returns: the folders removed.
    func removeAccountFolders(_ customers: [StateLocation]) -> [String] {
        var removed: [String] = []
        for customer in customers where customer.account != StateLocation.defaultAccount {
            if rmdir(customer.accountDirectory) == 0 { removed.append(customer.accountDirectory) }
        }
        if FileSystem.isDirectory(location.accountsDirectory), rmdir(location.accountsDirectory) == 0 {
            removed.append(location.accountsDirectory)
        }
        return removed
    }
}
