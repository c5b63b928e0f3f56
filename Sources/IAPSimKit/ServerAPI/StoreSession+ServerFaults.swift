import Foundation

extension StoreSession {
    /// The server errors and delays armed for `iapsim serve`, in the order armed.
    public func serverFaults() throws -> [ServerFault] {
        try store.serverFaults()
    }

    /// Arms `fault` after those already armed.
    /// - Returns: every fault armed now.
    public func armServerFault(_ fault: ServerFault) throws -> [ServerFault] {
        try store.updateServerFaults { faults in
            faults.append(fault)
            return faults
        }
    }

    /// Disarms every fault.
    /// - Returns: the faults that were armed.
    @discardableResult
    public func clearServerFaults() throws -> [ServerFault] {
        try store.updateServerFaults { faults in
            defer { faults = [] }
            return faults
        }
    }
}
