/// `iapsim.1`, generated from the same help text the commands print, so the two cannot drift
/// (a test compares the committed `docs/iapsim.1` with `iapsim help manpage`).
enum ManPage {
    static var roff: String {
        var page = [
            ".TH IAPSIM 1 \"\" \"iapsim \(HelpText.version)\" \"User Commands\"",
            ".SH NAME",
            "iapsim \\- an App Store storefront simulator: run the in-app purchase flow from a shell",
            ".SH SYNOPSIS",
            ".B iapsim",
            ".I command",
            "[\\fIoptions\\fR]",
            ".SH DESCRIPTION",
            escape(
                "iapsim models what StoreKit does on a device \u{2014} products requests, purchases, restore, "
                    + "entitlements, Ask to Buy, interrupted purchases, refunds, and subscriptions that renew and expire "
                    + "\u{2014} from the app's IAPProductIDs.plist and an Xcode StoreKit configuration file (.storekit)."
            ),
            ".SH COMMANDS",
        ]
        for help in Registry.visible {
            page += [".TP", "\\fB" + escape(help.usage) + "\\fR", escape(help.abstract)]
            page += help.discussion.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }
            for option in help.options {
                page += [".RS", ".TP", "\\fB" + escape(option.synopsis) + "\\fR", escape(option.help), ".RE"]
            }
            page += [".RS", ".nf"] + help.examples.map { escape($0) } + [".fi", ".RE"]
        }
        page.append(".SH OPTIONS")
        for spec in GlobalOptions.specs {
            page += [".TP", "\\fB" + escape(spec.synopsis) + "\\fR", escape(spec.help)]
        }
        page.append(escape("Each command's own options are listed under it above and in 'iapsim help COMMAND'."))
        page.append(".SH EXIT STATUS")
        for code in ExitCode.allCases {
            page += [".TP", "\\fB\(code.rawValue)\\fR", escape(code.meaning)]
        }
        page.append(".SH ENVIRONMENT")
        page += [".nf"] + HelpText.environment.split(separator: "\n").dropFirst().map { escape(String($0)) } + [".fi"]
        page += [
            ".SH FILES",
            ".TP", "\\fBpurchases.json\\fR, \\fBtransactions.jsonl\\fR, \\fBtransactions.idx\\fR",
            escape(
                "In the state folder: the app's record and session, the account's transaction journal, and its index "
                    + "(rebuilt from the journal whenever it is missing or stale)."),
            ".TP", "\\fBProducts.storekit\\fR, \\fBIAPProductIDs.plist\\fR, \\fBProducts.prices.json\\fR",
            escape("In the catalog folder: the store's products, the app's identifiers, other storefronts' prices."),
            ".SH SEE ALSO",
            escape("iapsim help errors, iapsim help settings-keys; the README in the iapsim repository."),
        ]
        return page.joined(separator: "\n")
    }

    /// Text safe in a roff line: backslashes escaped, and no line starting with a control character.
    private static func escape(_ text: String) -> String {
        var escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }
}
