import Foundation

// libFuzzer target: the recovery of a commit intent (`purchases.json.next`) a crash left. The
// input is split at 0x00 bytes into the snapshot (purchases.json), the journal
// (transactions.jsonl) and the intent. Recovery must never trap, and whatever the intent says
// it must never cut the journal into the bytes the snapshot had committed, nor replace
// store.json with something that does not read as one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map { Data($0) }
    guard parts.count == 3 else { return 0 }
    let directory = FuzzFiles.directory + "/intent"
    try? FileManager().removeItem(atPath: directory)
    try? FileManager().createDirectory(atPath: directory, withIntermediateDirectories: true)
    let store = StateStore(location: StateLocation(directory: directory))
    try? parts[0].write(to: URL(fileURLWithPath: store.location.statePath))
    try? parts[1].write(to: URL(fileURLWithPath: store.location.journalPath))
    let storeJSON = Data(#"{"storeVersion": 1, "notifications": {"count": 0, "journalLength": 0}}"#.utf8)
    try? storeJSON.write(to: URL(fileURLWithPath: store.location.appStatePath))
    try? parts[2].write(to: URL(fileURLWithPath: store.commitPath))
    let committed = (try? StateStore.decode(parts[0], path: store.location.statePath))?.account.journalLength
    _ = try? FileLock.holding(path: store.location.lockPath, timeout: 1) { try store.recoverCommit() }
    if let committed, committed <= UInt64(parts[1].count) {
        let journal = FileManager().contents(atPath: store.location.journalPath) ?? Data()
        if journal.count < Int(committed) || journal.prefix(Int(committed)) != parts[1].prefix(Int(committed)) {
            fatalError("recovery cut committed journal bytes")
        }
    }
    if let now = FileManager().contents(atPath: store.location.appStatePath),
        (try? AppState.decode(now, path: store.location.appStatePath)) == nil
    {
        fatalError("recovery put something that is no store.json in its place")
    }
    return 0
}
