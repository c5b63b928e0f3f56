import Foundation

// libFuzzer target: the state loader. The input is split at the first 0x00 byte into the
// snapshot (purchases.json) and the journal (transactions.jsonl).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    let directory = FuzzFiles.directory + "/state"
    try? FileManager().createDirectory(atPath: directory, withIntermediateDirectories: true)
    try? bytes[..<split].write(to: URL(fileURLWithPath: directory + "/purchases.json"))
    try? (split < bytes.endIndex ? bytes[(split + 1)...] : Data()).write(to: URL(fileURLWithPath: directory + "/transactions.jsonl"))
    let store = StateStore(location: StateLocation(directory: directory))
    if let state = try? store.read() {
        _ = AccountStatus(state: state, at: Date(timeIntervalSince1970: 1_800_000_000))
        _ = try? store.transactions()
    }
    return 0
}
