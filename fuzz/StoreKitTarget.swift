import Foundation

// libFuzzer target: the .storekit reader. Any input must give a StoreKitConfiguration or a
// CatalogError, never a crash, a hang or a leak.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = FuzzFiles.write(Data(bytes: data, count: size), name: "input.storekit")
    _ = try? StoreKitConfiguration.load(path: path)
    _ = CatalogCheck.run(CatalogSource(storeKitPath: path, productIDsPath: nil))
    return 0
}
