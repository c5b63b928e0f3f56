import Foundation

extension PurchaseState {
    /// Ends the Ask to Buy requests whose 24 hours ran out by `date`: they leave `pending`
    /// for `expiredRequests`, declined, with nothing charged.
    /// - Returns: the requests that expired now, oldest first.
    mutating func expireAskToBuyRequests(at date: Date) -> [PendingPurchase] {
        let expired = simulation.pending.filter { ($0.expirationDate ?? .distantFuture) <= date }
        guard !expired.isEmpty else { return [] }
        simulation.pending.removeAll { request in expired.contains { $0.id == request.id } }
        simulation.expiredRequests += expired
        return expired
    }
}
