import Foundation
import IAPSimJSON

/// The decoded payload of an App Store Server Notification V2 (`responseBodyV2DecodedPayload`),
/// built at delivery from what the outbox recorded at the event: `notificationType`,
/// `subtype`, `notificationUUID`, `version` 2.0, `signedDate` (the event's simulated time) and
/// `data` with the environment, the app, and the transaction and renewal info signed as they
/// were then.
public enum NotificationPayload {
    public static func payload(
        _ notification: ServerNotification, context: SigningContext, identity: SigningIdentity
    ) -> JSONValue {
        var at = context
        at.signedDate = notification.date
        var data: [(String, JSONValue)] = []
        if let id = context.appAppleID { data.append(("appAppleId", .number(String(id)))) }
        data.append(("bundleId", .string(context.bundleID)))
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
            if let renewal = notification.renewal {
                let state = SubscriptionEngine.renewalState(renewal, latest: transaction, at: notification.date)
                data.append(
                    (
                        "signedRenewalInfo",
                        .string(
                            identity.sign(
                                SignedPayloads.renewalInfo(renewal, latest: transaction, state: state, context: at),
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
        members += [
            ("notificationUUID", .string(notification.uuid)), ("data", .object(data)), ("version", .string("2.0")),
            ("signedDate", SignedPayloads.milliseconds(notification.date)),
        ]
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
