import Foundation

/// The identity a long-running signer uses, read again from its folder when the set there
/// changed (`CertificateSetFolder.generation`: one `readlink` per signing).
final class SigningIdentitySource: @unchecked Sendable {
    private let lock = NSLock()
    private var identity: SigningIdentity
    private let reloading: Bool

    init(_ identity: SigningIdentity, reloading: Bool) {
        self.identity = identity
        self.reloading = reloading
    }

    func current() -> SigningIdentity {
        let held = lock.withLock { identity }
        guard reloading else { return held }
        let generation = CertificateSetFolder.generation(of: held.directory)
        guard generation != held.generation,
            let fresh = try? SigningIdentity.load(from: held.directory)
        else { return held }
        lock.withLock { identity = fresh }
        return fresh
    }
}
