import Foundation
import IAPSimJSON
import IAPSimKit

struct Trigger: CLICommand {
    static let spec = CommandSpec(
        name: "trigger", abstract: "Make the events happen that raise one notification (stripe trigger for Apple).",
        synopsis: "TYPE[/SUBTYPE] [--product ID] | --list",
        discussion: """
            Runs, on the current state, the purchases, clock moves, renewals and refunds that lead
            to the notification, so 'iapsim trigger DID_FAIL_TO_RENEW/GRACE_PERIOD' is one command;
            settings it needs on the way (billing retry, grace period) are put back after. It
            prints every notification the events raised. --list shows what it can trigger.
            """,
        arguments: [.init("type", kind: .text)],
        options: [
            .value("product", "ID", help: "The product whose events raise the notification.", completes: .productID),
            OptionSpec(name: "list", help: "List what trigger can produce."),
        ],
        examples: [
            "iapsim trigger --list", "iapsim trigger DID_FAIL_TO_RENEW/GRACE_PERIOD",
            "iapsim trigger REFUND --product com.example.app.book --json",
        ])

    let name: String?
    let productID: String?

    init(_ words: ParsedWords) throws(UsageError) {
        if words.flag("list") {
            try words.expect(count: 0)
            name = nil
        } else {
            name = try words.only("type[/subtype]")
        }
        productID = words.value("product")
    }

    func run(in context: CommandContext) throws -> Report {
        guard let name else {
            return Report(
                json: .object([("triggerable", .array(StoreSession.triggerable.map(JSON.string)))]),
                lines: StoreSession.triggerable)
        }
        let (catalog, session) = try context.catalogAndSession()
        let raised = try session.trigger(name, productID: productID, in: catalog)
        // What it made happen on the way (a purchase to act on, a trial run out, a clock moved)
        // is said, so nobody wonders where a SUBSCRIBED or a new transaction came from.
        let wanted = name.uppercased()
        let onTheWay = raised.filter {
            $0.name != wanted && $0.name.split(separator: "/").first.map(String.init) != wanted
        }
        var notes: [String] = []
        if !onTheWay.isEmpty, onTheWay.count < raised.count {
            notes.append(
                "Note: to make \(wanted) happen, trigger first made these happen on the state: "
                    + onTheWay.map(\.name).joined(separator: ", ")
                    + " (a purchase to act on, a trial or period run out, the clock moved as needed)")
        }
        var report = Report(
            json: .object([("notifications", .array(raised.map(NotificationRendering.notificationJSON)))]),
            lines: raised.isEmpty
                ? ["Nothing was raised."]
                : raised.map {
                    "\(ISO8601Date.string($0.date))  \($0.name)  [\($0.uuid)]\($0.transaction.map { "  transaction \($0.id)" } ?? "")"
                })
        report.notes += notes
        return report
    }
}
