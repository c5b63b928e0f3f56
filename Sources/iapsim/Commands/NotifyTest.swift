import Foundation
import IAPSimKit

struct NotifyTest: CLICommand {
    static let spec = CommandSpec(
        name: "notify-test", abstract: "Queue a TEST notification (Request a Test Notification).",
        synopsis: "",
        discussion: """
            Queues a TEST notification, whose data holds only the app and the environment, and
            prints its token (its notificationUUID); 'iapsim listen' delivers it.
            """,
        arguments: [],
        options: [],
        examples: ["iapsim notify-test && iapsim notifications --type TEST"])

    init(_ words: ParsedWords) throws(UsageError) {
        try words.expect(count: 0)
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let test = try session.sendTestNotification()
        return Report(
            json: .object([
                ("testNotificationToken", .string(test.uuid)),
                ("notification", NotificationRendering.notificationJSON(test)),
            ]),
            lines: ["Queued TEST notification \(test.uuid); 'iapsim listen --forward-to URL' delivers it."])
    }
}
