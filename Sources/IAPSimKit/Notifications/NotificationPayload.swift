import Foundation
import IAPSimJSON

/// The decoded payload of an App Store Server Notification V2 (`responseBodyV2DecodedPayload`),
/// built at delivery from what the outbox recorded at the event: `notificationType`,
/// `subtype`, `notificationUUID`, `version` 2.0, `signedDate` (the event's simulated time) and
/// `data` with the environment, the app, and the transaction and renewal info signed as they
/// were then — or, for a mass renewal extension's `SUMMARY`, `summary` instead of `data`.
public enum NotificationPayload {
    public static func payload(
        _ notification: ServerNotification, context: SigningContext, identity: SigningIdentity
    ) -> JSONValue {
        var at = context
        at.signedDate = notification.date
        var data: [(String, JSONValue)] = appIdentity(context)
        if notification.kind != .test { data.append(("bundleVersion", .string("1"))) }
        data.append(("environment", .string(context.environment.rawValue)))
        if let transaction = notification.transaction {
            data.append(
                (
                    "signedTransactionInfo",
                    .string(
                        identity.sign(
                            SignedPayloads.transaction(transaction, context: at), environment: context.environment))
                ))
            if let renewal = notification.renewal, let latest = notification.chainLatest {
                // The chain's renewal info at the event, worked out from its newest transaction
                // then, not from the (possibly earlier) period the notification is about.
                let state = SubscriptionEngine.renewalState(renewal, latest: latest, at: notification.date)
                data.append(
                    (
                        "signedRenewalInfo",
                        .string(
                            identity.sign(
                                SignedPayloads.renewalInfo(renewal, latest: latest, state: state, context: at),
                                environment: context.environment))
                    ))
            }
        }
        if let status = notification.status { data.append(("status", .int(status.rawValue))) }
        if let reason = notification.consumptionRequestReason {
            data.append(("consumptionRequestReason", .string(reason.rawValue)))
        }
        var members: [(String, JSONValue)] = [("notificationType", .string(notification.kind.rawValue))]
        if let subtype = notification.subtype { members.append(("subtype", .string(subtype.rawValue))) }
        members.append(("notificationUUID", .string(notification.uuid)))
        // Apple, "responseBodyV2DecodedPayload": `data`, or `summary` for a mass extension.
        if let summary = notification.summary {
            members.append(("summary", summaryJSON(summary, context: context)))
        } else {
            members.append(("data", .object(data)))
        }
        members += [("version", .string("2.0")), ("signedDate", SignedPayloads.milliseconds(notification.date))]
        return .object(members)
    }

    /// `appAppleId` and `bundleId`. Apple, "appAppleId": the app's identifier in the App Store,
    /// not present in the sandbox; iapsim gives it in Production only.
    static func appIdentity(_ context: SigningContext) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if context.environment == .production, let id = context.appAppleID {
            members.append(("appAppleId", .number(String(id))))
        }
        members.append(("bundleId", .string(context.bundleID)))
        return members
    }

    /// Apple, "summary": what a mass renewal extension did, with the app and the environment.
    static func summaryJSON(_ summary: MassExtensionSummary, context: SigningContext) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("requestIdentifier", .string(summary.requestIdentifier)),
            ("environment", .string(context.environment.rawValue)),
        ]
        members += appIdentity(context)
        members.append(("productId", .string(summary.productID)))
        if let codes = summary.storefrontCountryCodes {
            members.append(("storefrontCountryCodes", .array(codes.map(JSONValue.string))))
        }
        members += [("succeededCount", .int(summary.succeededCount)), ("failedCount", .int(summary.failedCount))]
        return .object(members)
    }

    /// The signed payload, as POSTed: `{"signedPayload": "<JWS>"}`.
    public static func signedPayload(
        _ notification: ServerNotification, context: SigningContext, identity: SigningIdentity
    ) -> (jws: String, payload: JSONValue) {
        let payload = payload(notification, context: context, identity: identity)
        return (identity.sign(payload, environment: context.environment), payload)
    }
}
