import IAPSimKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What identifies one version of the state without reading it: the size, inode and change
/// time of each file a command writes for the customer the page shows — its snapshot and
/// journal (`accounts/NAME/` for a customer other than `default`) — and of the app's files
/// every customer's command may write: `store.json` (the clock, the app's settings, the
/// outbox's count) and the outbox, and `customers.json`, so a customer added from a shell
/// appears in the page's picker. Every change rewrites a snapshot or `store.json` (a new
/// inode) or appends to a journal (a new size), so a change made from any shell changes it;
/// the page waits on it instead of re-reading the state. It starts with the customer's name:
/// two customers are two versions even before either has a file.
struct StateVersion: Equatable, Sendable {
    let text: String

    /// The version of the state at `location` now: a few `stat` calls, no reading.
    init(_ location: StateLocation) {
        var parts: [String] = [location.account]
        for path in [
            location.statePath, location.journalPath, location.appStatePath, location.notificationsPath,
            location.customersPath,
        ] {
            var info = stat()
            guard stat(path, &info) == 0 else {
                parts.append("-")
                continue
            }
            #if canImport(Darwin)
                let changed = info.st_ctimespec
            #else
                let changed = info.st_ctim
            #endif
            parts.append("\(info.st_ino).\(info.st_size).\(changed.tv_sec).\(changed.tv_nsec)")
        }
        text = parts.joined(separator: "-")
    }
}
