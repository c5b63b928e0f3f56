import Foundation
import IAPSimJSON

/// `iapsim check`: lints an app's catalog for CI. Unlike the loader, which stops at the first
/// problem, it reads the files leniently and reports every problem it finds.
public enum CatalogCheck {
    /// One problem: `file: product: problem`.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        public var file: String
        /// The product identifier, or `-` for the file as a whole.
        public var productID: String
        /// What kind of problem, stable across versions for scripts (`check --json`).
        public var code: Code
        public var problem: String

        /// The kinds of problem `check` finds.
        public enum Code: String, Sendable, CaseIterable {
            case notStoreKitFile, unreadableFile, malformedFile, duplicateIdentifier, invalidIdentifier
            case invalidProductIdentifier, notRequested, unknownPricedProduct, unknownStorefront, unknownLocale
            case unknownType, misplacedType, missingPrice, fractionalPrice, malformedPrice, missingLocalization
            case emptyDisplayName, malformedPeriod, missingGroupLevel, clashingLevels
            /// What the loader every other command uses refuses and the lenient reading did not find.
            case refusedByLoader
        }

        public var description: String { "\(file): \(productID): \(problem)" }
    }

    /// App Store Connect: "Product IDs can contain only alphanumeric characters, underscores, and periods."
    static func isValidIdentifier(_ identifier: String) -> Bool {
        !identifier.isEmpty
            && identifier.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == ".")
            }
    }

    /// Every problem in the catalog named by `source`; empty when it is clean.
    public static func run(_ source: CatalogSource) -> [Finding] {
        var findings: [Finding] = []
        let storePath = source.storeKitPath
        func report(_ file: String, _ product: String, _ code: Finding.Code, _ problem: String) {
            findings.append(Finding(file: file, productID: product, code: code, problem: problem))
        }

        var storeIDs: [String] = []
        do {
            let data = try CatalogFile.read(storePath)
            guard let root = try? StoreKitConfiguration.document(data, path: storePath), root.objectValue != nil else {
                report(
                    storePath, "-", .notStoreKitFile,
                    "not a StoreKit configuration file (malformed JSON or plist, or not an object)")
                return findings
            }
            storeIDs = checkStore(root, path: storePath, report: report)
        } catch {
            report(
                storePath, "-",
                .unreadableFile, error.errorDescription.map { Self.strip($0, storePath) } ?? "\(error)")
            return findings
        }

        if let plistPath = source.productIDsPath {
            do {
                let requested = try ProductIdentifierList.load(path: plistPath)
                var seen = Set<String>()
                for identifier in requested {
                    if !seen.insert(identifier).inserted {
                        report(plistPath, identifier, .duplicateIdentifier, "listed more than once")
                    }
                    if !isValidIdentifier(identifier) {
                        report(
                            plistPath, identifier,
                            .invalidIdentifier,
                            "has characters App Store Connect refuses (only letters, digits, _ and .)")
                    }
                }
                let inStore = Set(storeIDs)
                for identifier in requested where !inStore.contains(identifier) && seen.remove(identifier) != nil {
                    report(
                        plistPath, identifier, .invalidProductIdentifier,
                        "not in \(storePath) (invalidProductIdentifiers)")
                }
                let asked = Set(requested)
                for identifier in storeIDs where !asked.contains(identifier) {
                    report(
                        storePath, identifier, .notRequested,
                        "in the store but not in \(plistPath), so the app never asks for it")
                }
            } catch {
                report(
                    plistPath, "-",
                    .unreadableFile, error.errorDescription.map { Self.strip($0, plistPath) } ?? "\(error)")
            }
        }

        let pricesPath = StorefrontPrices.path(forStoreKit: storePath)
        do {
            if let prices = try StorefrontPrices.loadIfPresent(path: pricesPath) {
                let known = Set(storeIDs)
                for productID in prices.prices.keys.sorted() where !known.contains(productID) {
                    report(pricesPath, productID, .unknownPricedProduct, "has prices but is not in \(storePath)")
                }
            }
        } catch {
            report(
                pricesPath, "-",
                .unreadableFile, error.errorDescription.map { Self.strip($0, pricesPath) } ?? "\(error)")
        }
        // Then the loader itself, as every other command runs it (and with the pricing file, as
        // a command for another storefront reads it): a catalog `check` passes is one they load.
        // A problem found above that the loader stops at is not said twice.
        do throws(CatalogError) {
            _ = try Catalog.load(source)
            _ = try StorefrontPrices.loadIfPresent(path: pricesPath)
        } catch {
            let message = error.errorDescription.map { Self.strip($0, storePath) } ?? "\(error)"
            let said = findings.contains { $0.productID != "-" && message.contains($0.productID + ":") }
            if !said, !findings.contains(where: { $0.code == .unreadableFile || $0.code == .notStoreKitFile }) {
                report(storePath, "-", .refusedByLoader, message)
            }
        }
        return findings
    }

    /// Checks the `.storekit` JSON; returns the product identifiers it defines.
    private static func checkStore(
        _ root: JSONValue, path: String, report: (String, String, Finding.Code, String) -> Void
    ) -> [String] {
        let settings = root["settings"] ?? .object([])
        var storefront = Storefront.unitedStates
        if let code = settings["_storefront"] {
            if let code = code.stringValue, let named = Storefront.named(code) {
                storefront = named
            } else {
                report(
                    path, "-", .unknownStorefront,
                    "settings._storefront \(code.serialized()) is not an App Store storefront")
            }
        }
        var defaultLocale = storefront.localeIdentifier
        if let locale = settings["_locale"] {
            if let locale = locale.stringValue, let canonical = LocaleName.canonical(locale) {
                defaultLocale = canonical
            } else {
                report(path, "-", .unknownLocale, "settings._locale \(locale.serialized()) is not a known locale")
            }
        }

        var entries: [(entry: JSONValue, location: String, group: JSONValue?)] = []
        for key in ["products", "nonRenewingSubscriptions"] {
            guard let value = root[key] else { continue }
            guard let array = value.arrayValue else {
                report(path, "-", .malformedFile, "\(key) is not an array")
                continue
            }
            entries += array.enumerated().map { ($1, "\(key)[\($0)]", nil) }
        }
        if let groups = root["subscriptionGroups"] {
            if let groups = groups.arrayValue {
                for (groupIndex, group) in groups.enumerated() {
                    guard let subscriptions = group["subscriptions"]?.arrayValue else {
                        report(
                            path, "-", .malformedFile, "subscriptionGroups[\(groupIndex)] has no subscriptions array")
                        continue
                    }
                    entries += subscriptions.enumerated().map {
                        ($1, "subscriptionGroups[\(groupIndex)].subscriptions[\($0)]", group)
                    }
                    checkLevels(subscriptions, group: group, path: path, report: report)
                }
            } else {
                report(path, "-", .malformedFile, "subscriptionGroups is not an array")
            }
        }

        var identifiers: [String] = []
        var seen = Set<String>()
        for (entry, location, group) in entries {
            guard entry.objectValue != nil else {
                report(path, location, .malformedFile, "is not an object")
                continue
            }
            guard let productID = entry["productID"]?.stringValue else {
                report(path, location, .malformedFile, "has no productID string")
                continue
            }
            identifiers.append(productID)
            if !seen.insert(productID).inserted {
                report(path, productID, .duplicateIdentifier, "defined more than once")
            }
            if !isValidIdentifier(productID) {
                report(
                    path, productID, .invalidIdentifier,
                    "has characters App Store Connect refuses (only letters, digits, _ and .)")
            }
            let type = entry["type"]?.stringValue ?? "(none)"
            let productType = ProductType(storeKitConfigurationName: type)
            if productType == nil {
                report(path, productID, .unknownType, "unknown type \"\(type)\"")
            } else if (productType == .autoRenewable) != (group != nil) {
                report(
                    path, productID, .misplacedType,
                    "type \(type) does not belong in \(location.split(separator: "[").first ?? "")")
            }
            switch entry["displayPrice"]?.stringValue {
            case let text? where text.isEmpty:
                report(path, productID, .missingPrice, "has no price")
            case let text?:
                if let price = Decimal(plainDecimal: text) {
                    if !Currency.isValid(price, in: storefront.currencyCode) {
                        report(
                            path, productID,
                            .fractionalPrice,
                            "price \(text) is not valid in \(storefront.currencyCode), which has no decimals")
                    }
                } else {
                    report(
                        path, productID, .malformedPrice, "price \"\(text)\" is not a plain decimal such as \"0.99\"")
                }
            default:
                report(path, productID, .missingPrice, "displayPrice is missing or not a string")
            }
            let localizations = entry["localizations"]?.arrayValue ?? []
            // The matching `list` and `buy` use, kept to the same language and script: `ja`
            // serves ja_JP, `zh_Hant` does not serve zh_CN.
            let keys = localizations.compactMap { $0["locale"]?.stringValue.map(LocaleKey.init) }
            if LocaleKey(defaultLocale).bestMatch(among: keys, minimum: 2) == nil {
                report(path, productID, .missingLocalization, "no localization for the default locale \(defaultLocale)")
            }
            for localization in localizations where (localization["displayName"]?.stringValue ?? "").isEmpty {
                report(
                    path, productID, .emptyDisplayName,
                    "empty displayName in \(localization["locale"]?.stringValue ?? "a localization")")
            }
            if productType == .autoRenewable {
                let period = entry["recurringSubscriptionPeriod"]?.stringValue ?? ""
                if SubscriptionPeriod(iso8601: period)?.isAtMostAYear != true {
                    report(
                        path, productID, .malformedPeriod,
                        "recurringSubscriptionPeriod \"\(period)\" is not a period of a day to a year, such as P1M")
                }
            }
        }
        return identifiers
    }

    /// Levels clash when two subscriptions of one group have the same level and the same
    /// period: nothing tells them apart, so moving between them is neither an upgrade, a
    /// downgrade nor a crossgrade Apple can schedule. (One level with several periods —
    /// monthly and yearly of one tier — is Apple's own pattern, and fine.) A subscription
    /// without a level is a clash too.
    private static func checkLevels(
        _ subscriptions: [JSONValue], group: JSONValue, path: String,
        report: (String, String, Finding.Code, String) -> Void
    ) {
        var seen: [String: String] = [:]
        let name = group["name"]?.stringValue ?? group["id"]?.stringValue ?? "?"
        for subscription in subscriptions {
            guard let id = subscription["productID"]?.stringValue else { continue }
            guard let level = subscription["groupNumber"]?.intValue, level > 0 else {
                report(path, id, .missingGroupLevel, "has no level (groupNumber) in group \(name)")
                continue
            }
            let key = "\(level) \(subscription["recurringSubscriptionPeriod"]?.stringValue ?? "")"
            if let other = seen[key] {
                report(
                    path, id, .clashingLevels, "clashes with \(other): same level \(level) and period in group \(name)")
            } else {
                seen[key] = id
            }
        }
    }

    /// The message without its leading `path: `, since the finding names the file.
    private static func strip(_ message: String, _ path: String) -> String {
        message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
    }
}
