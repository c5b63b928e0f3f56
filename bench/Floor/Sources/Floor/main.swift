import Foundation

// Reads one small JSON file and one plist, and formats one currency value: the floor any
// Foundation-based command-line tool pays on every call.
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: Floor FILE.json FILE.plist\n".utf8))
    exit(64)
}
let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: arguments[1])))
let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: arguments[2])), format: nil)
let price = Decimal(string: "0.99")!.formatted(.currency(code: "USD").locale(Locale(identifier: "en_US")))
print((json as? [String: Any])?.count ?? 0, (plist as? [Any])?.count ?? 0, price)
