import Foundation

/// Fixed "random" bytes handed out in order, for a server whose random and key share a test
/// must predict (RFC 8448's trace); past the end it gives zeros.
final class ByteQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func take(_ count: Int) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let taken = Array(bytes.prefix(count))
        bytes.removeFirst(taken.count)
        return taken + [UInt8](repeating: 0, count: count - taken.count)
    }
}
