import Foundation

// libFuzzer target: every message that prints catalog text, and the completion output. The
// input is a .storekit file; iapsim runs list, buy, status, transactions, refund, approve,
// check and `completion products` on it in-process, and no control byte, DEL, C1 control or
// bidi override may reach standard output or standard error (a newline ends a line).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = FuzzFiles.write(Data(bytes: data, count: size), name: "Products.storekit")
    let state = FuzzFiles.directory + "/state"
    try? FileManager().removeItem(atPath: state)
    let output = Output()
    let console = Console(
        writeOut: { output.append($0) }, writeError: { output.append($0) }, readLine: { nil },
        inputIsTerminal: false)
    let context = Context(
        environment: ["IAPSIM_STATE_DIR": state], currentDirectory: FuzzFiles.directory,
        now: { Date(timeIntervalSince1970: 1_800_000_000) })
    func run(_ arguments: [String]) { _ = IAPSim.run(arguments: arguments + ["--storekit", path], context: context, console: console) }
    run(["list"])
    let ids = (try? Catalog.load(CatalogSource(storeKitPath: path, productIDsPath: nil)))?.products.prefix(3).map(\.id) ?? []
    for id in ids {
        run(["buy", id])
        run(["buy", id, "--outcome", "ask-to-buy"])
        run(["expire", id])
        run(["cancel-subscription", id])
    }
    for arguments in [["status"], ["transactions"], ["refund", "1"], ["approve", "2"], ["check"], ["completion", "products"]] {
        run(arguments)
    }
    for scalar in output.text.unicodeScalars where scalar != "\n" {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
            fatalError("a control character reached the terminal: U+\(String(scalar.value, radix: 16))")
        default: continue
        }
    }
    return 0
}

private final class Output: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""
    func append(_ text: String) { lock.withLock { buffer += text } }
    var text: String { lock.withLock { buffer } }
}
