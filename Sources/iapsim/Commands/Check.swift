import Foundation
import IAPSimKit

struct Check: CLICommand {
    static let spec = CommandSpec(
        name: "check", abstract: "Lint the app's catalog, for CI.",
        synopsis: "[--catalog DIR | --storekit FILE --product-ids FILE]",
        discussion: """
            Reads the catalog leniently and reports every problem, one line each as
            'file: product: problem': identifiers with characters App Store Connect refuses,
            duplicates, identifiers in the plist missing from the store and the reverse,
            products without a localization for the default locale, prices that are not plain
            decimals or not valid for the currency (JPY, KRW, … have no decimals), subscriptions
            of one group on the same level, unknown types, and pricing-file entries for products
            the store lacks; then runs the loader every other command uses, and reports what it
            refuses that the lenient reading did not find (refusedByLoader), so a catalog check
            passes is one every command loads. Exit 0 when clean, 65 otherwise.
            """,
        arguments: [],
        options: [],
        examples: [
            "iapsim check",
            "iapsim check --storekit catalog/Products.storekit --product-ids catalog/IAPProductIDs.plist --json",
        ])

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
    }

    func run(in context: CommandContext) throws -> Report {
        let source = try context.catalogSource()
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
