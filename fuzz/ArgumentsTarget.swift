import Foundation

// libFuzzer target: the hand-written argument parser. The input is split at 0x00 bytes into
// arguments; parsing must return an Invocation or throw a UsageError whose text is one line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let arguments = Data(bytes: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    do {
        _ = try ArgumentParser.parse(arguments)
    } catch {
        precondition(!error.line.contains("\n") || arguments.contains { $0.contains("\n") })
    }
    return 0
}
