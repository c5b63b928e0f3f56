import Foundation
import IAPSimJSON

extension StateStore {
    /// The server errors and delays armed, in the order armed; none when the file is absent.
    /// - Throws: `StateError.corrupt` for a file that does not read, `.unreadable`.
    public func serverFaults() throws(StateError) -> [ServerFault] {
        let path = location.serverFaultsPath
        let data: Data?
        do {
            data = try POSIXFile.readIfPresent(path)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        guard let data else { return [] }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(data))
        } catch {
            throw .corrupt(path: path, detail: "byte \(error.offset): \(error.message)")
        }
        guard let items = value["armed"]?.arrayValue else {
            throw .corrupt(path: path, detail: "expected an object with an 'armed' array")
        }
        var faults: [ServerFault] = []
        for (index, item) in items.enumerated() {
            guard let fault = ServerFault(json: item) else {
                throw .corrupt(path: path, detail: "armed[\(index)] is not an error or a delay iapsim arms")
            }
            faults.append(fault)
        }
        return faults
    }

    /// Applies `change` to the armed faults under the state lock and saves them (atomically;
    /// the file goes when none is left).
    public func updateServerFaults<Result>(_ change: (inout [ServerFault]) throws -> Result) throws -> Result {
        do {
            try POSIXFile.makeDirectory(location.directory)
        } catch {
            throw StateError.cannotCreate(path: error.path, reason: error.reason)
        }
        return try holdingLock {
            let before = try serverFaults()
            var faults = before
            let result = try change(&faults)
            if faults != before { try writeServerFaults(faults) }
            return result
        }
    }

    /// What a request to `path` meets, counted down under the lock, so two requests never
    /// both take the last of a count. With nothing armed (no file), or nothing armed that
    /// matches `path` (the file replaced atomically, so read whole without the lock), it takes
    /// no lock; a match is decided again under it.
    public func consumeServerFaults(path: String) throws -> ServerFault.Outcome {
        guard FileSystem.exists(location.serverFaultsPath) else { return .none }
        var glance = try serverFaults()
        guard ServerFault.consume(&glance, path: path) != .none else { return .none }
        return try updateServerFaults { faults in ServerFault.consume(&faults, path: path) }
    }

    private func writeServerFaults(_ faults: [ServerFault]) throws(StateError) {
        let path = location.serverFaultsPath
        do {
            if faults.isEmpty {
                if FileSystem.entryExists(path) { try POSIXFile.remove(path) }
                return
            }
            let document = JSONValue.object([("armed", .array(faults.map(\.json)))])
            try POSIXFile.writeAtomically(Data(document.bytes() + [0x0A]), to: path)
        } catch {
            throw error.storeError
        }
    }
}
