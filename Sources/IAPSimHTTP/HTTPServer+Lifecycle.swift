import Foundation

extension HTTPServer {
    /// Running, stopping or stopped, and whether the accepting thread has ended.
    final class Lifecycle: @unchecked Sendable {
        private let condition = NSCondition()
        private var stopRequested = false
        private var stopped = false
        private var acceptorRunning = true

        /// True for the first caller only: that one carries the stop out.
        func beginStopping() -> Bool {
            condition.withLock {
                defer { stopRequested = true }
                return !stopRequested
            }
        }

        func acceptorEnded() {
            condition.withLock {
                acceptorRunning = false
                condition.broadcast()
            }
        }

        func waitForAcceptor() {
            condition.withLock {
                while acceptorRunning { condition.wait() }
            }
        }

        func finishStopping() {
            condition.withLock {
                stopped = true
                condition.broadcast()
            }
        }

        func waitUntilStopped() {
            condition.withLock {
                while !stopped { condition.wait() }
            }
        }
    }
}
