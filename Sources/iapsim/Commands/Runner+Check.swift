import IAPSimKit

extension Runner {
    /// `check`: every problem in the catalog, one line each; 65 if there is any.
    func check() throws -> ExitCode {
        let source = try CatalogSource.resolve(
            catalogDirectory: options.catalogDirectory, storeKitFile: options.storeKitFile,
            productIDsFile: options.productIDsFile, context: context)
        let findings = CatalogCheck.run(source)
        if options.json {
            emit(
                .object([
                    ("clean", .bool(findings.isEmpty)),
                    (
                        "findings",
                        .array(
                            findings.map {
                                .object([
                                    ("file", .string($0.file)), ("productID", .string($0.productID)),
                                    ("problem", .string($0.problem)),
                                ])
                            })
                    ),
                ]))
        } else if findings.isEmpty {
            console.out("No problems in \(source.storeKitPath)\(source.productIDsPath.map { " and \($0)" } ?? "").")
        } else {
            findings.forEach { console.out(TerminalText.escaped($0.description)) }
            console.notice("\(findings.count) problem\(findings.count == 1 ? "" : "s") found.")
        }
        return findings.isEmpty ? .success : .dataError
    }
}
