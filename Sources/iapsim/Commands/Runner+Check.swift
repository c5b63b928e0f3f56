import IAPSimKit

extension Runner {
    /// `check`: every problem in the catalog, one line each; 65 if there is any.
    func check() throws -> Report {
        let source = try catalogSource()
        let findings = CatalogCheck.run(source)
        var report = Report(
            status: findings.isEmpty ? .success : .dataError,
            json: .object([
                ("clean", .bool(findings.isEmpty)),
                (
                    "findings",
                    .array(
                        findings.map {
                            .object([
                                ("file", .string($0.file)), ("productID", .string($0.productID)),
                                ("code", .string($0.code.rawValue)), ("problem", .string($0.problem)),
                            ])
                        })
                ),
            ]),
            lines: findings.isEmpty
                ? ["No problems in \(source.storeKitPath)\(source.productIDsPath.map { " and \($0)" } ?? "")."]
                : findings.map(\.description))
        if !findings.isEmpty { report.notes = ["\(findings.count) problem\(findings.count == 1 ? "" : "s") found."] }
        return report
    }
}
