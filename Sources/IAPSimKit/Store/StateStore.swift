import Foundation

/// The one place state is read and written.
///
/// Reads take no lock: writes replace the file atomically, so a reader sees a whole old or a
/// whole new file. Every change runs under an exclusive lock on a separate lock file, reads
/// the current state afresh, and writes it back atomically (mode 0600, in a 0700 folder), so
/// concurrent `iapsim` processes never lose a purchase. A file that cannot be parsed or has a
/// newer schema stops the command before anything is written.
public struct StateStore: Sendable {
    public let location: StateLocation

    public init(location: StateLocation) {
        self.location = location
    }

    /// The current state; an empty one if there is no file yet.
    /// - Throws: `StoreError.corrupt`, `.newerSchema` or `.io`.
    public func read() throws(StoreError) -> PurchaseState {
        let path = location.statePath
        let data: Data?
        do {
            data = try POSIXFile.readIfPresent(path)
        } catch {
            throw .io(path: path, reason: error.reason)
        }
        guard let data else { return PurchaseState() }
        return try Self.decode(data, path: path)
    }

    /// Applies `change` to the current state under the lock and saves the result, unless
    /// `change` left the state unchanged or threw.
    /// - Returns: what `change` returned.
    /// - Throws: what `change` threw, or a `StoreError`.
    public func update<Result>(_ change: (inout PurchaseState) throws -> Result) throws -> Result {
        try prepareDirectory()
        return try FileLock.holding(path: location.lockPath, timeout: location.lockTimeout) {
            let before = try read()
            var state = before
            let result = try change(&state)
            if state != before { try write(state) }
            return result
        }
    }

    /// Removes the state file (under the lock). The folder and lock file stay.
    public func erase() throws {
        guard FileSystem.exists(location.directory) else { return }
        try FileLock.holding(path: location.lockPath, timeout: location.lockTimeout) {
            _ = try read()  // never erase what could not be read: a newer iapsim's file stays
            do {
                try POSIXFile.remove(location.statePath)
            } catch let error as POSIXFile.Failure {
                throw error.storeError
            }
        }
    }

    private func prepareDirectory() throws(StoreError) {
        do {
            try POSIXFile.makeDirectory(location.directory)
        } catch {
            throw .cannotCreate(path: error.path, reason: error.reason)
        }
    }

    private func write(_ state: PurchaseState) throws(StoreError) {
        let data: Data
        do {
            data = try Self.encoder.encode(state) + Data("\n".utf8)
        } catch {
            throw .io(path: location.statePath, reason: "cannot encode the state: \(error)")
        }
        do {
            try POSIXFile.writeAtomically(data, to: location.statePath)
        } catch {
            throw error.storeError
        }
    }

    static func decode(_ data: Data, path: String) throws(StoreError) -> PurchaseState {
        struct Header: Decodable { var schemaVersion: Int }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch let error as DecodingError {
            throw .corrupt(path: path, detail: error.readableDescription)
        } catch {
            throw .corrupt(path: path, detail: "not JSON")
        }
        if header.schemaVersion > PurchaseState.currentSchemaVersion {
            throw .newerSchema(path: path, version: header.schemaVersion)
        }
        if header.schemaVersion < 1 {
            throw .corrupt(path: path, detail: "schemaVersion \(header.schemaVersion) is not a version iapsim wrote")
        }
        do {
            return try decoder.decode(PurchaseState.self, from: data)
        } catch let error as DecodingError {
            throw .corrupt(path: path, detail: error.readableDescription)
        } catch {
            throw .corrupt(path: path, detail: "not JSON")
        }
    }

    /// Stable output: sorted keys, ISO 8601 dates, unescaped slashes.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}
