import Foundation

// libFuzzer target: the app's product identifier plist.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = FuzzFiles.write(Data(bytes: data, count: size), name: "input.plist")
    _ = try? ProductIdentifierList.load(path: path)
    return 0
}
