import Foundation

/// The page's long polls waiting now (`/api/version`), at most `limit` at once: each holds a
/// connection of the server's 256 for up to 15 seconds, so a page opened in many tabs, or a
/// local process looping on the endpoint, could otherwise hold every slot and leave none for
/// the page's reads and buttons. A poll past the limit is answered at once, told to wait.
final class LongPolls: @unchecked Sendable {
    /// Polls that may wait at once: an eighth of the server's connections.
    static let defaultLimit = 32

    let limit: Int
    private let lock = NSLock()
    private var waiting = 0

    init(limit: Int = defaultLimit) { self.limit = limit }

    /// Takes a place if there is one; the caller gives it back with `leave()`.
    func enter() -> Bool {
        lock.withLock {
            guard waiting < limit else { return false }
            waiting += 1
            return true
        }
    }

    func leave() { lock.withLock { waiting -= 1 } }

    /// How many wait now.
    var count: Int { lock.withLock { waiting } }
}
