import Foundation
import IAPSimJSON

/// What is the app's in a store of many customers, kept in `store.json` at the top of the
/// state folder: the clock, the settings that belong to the app rather than to a buyer's
/// device or account (`SettingKey.isAppWide`), and the notification outbox's count and mark.
/// In memory it is part of every customer's `PurchaseState`, so the code that runs a purchase
/// sees one state; `StateStore` lays it over the customer's snapshot as it reads, and writes it
/// back here as it writes.
///
/// A folder without `store.json` was written before customers existed: its app-wide values are
/// in `default`'s snapshot, where they are read from until the first write puts them here.
struct AppState: Equatable, Sendable {
    static let currentVersion = 1

    var clock: SimulatedClock?
    /// Only app-wide keys.
    var settings = SettingOverrides()
    var notificationCount = 0
    var notificationsLength: UInt64 = 0
    /// The nonces of the promotional offer signatures redeemed, by any customer: a nonce is
    /// the app server's, used once for the app (Apple, "Generating a signature for
    /// promotional offers"), so another customer cannot redeem a signature again.
    var usedOfferNonces: [SimulationState.OfferNonce] = []

    init() {}

    /// The app-wide part of `state`.
    init(of state: PurchaseState) {
        clock = state.simulation.clock
        for key in state.simulation.settings.keys where key.isAppWide {
            settings.take(key, from: state.simulation.settings)
        }
        notificationCount = state.outbox.count
        notificationsLength = state.outbox.journalLength
        usedOfferNonces = state.simulation.usedOfferNonces
    }

    /// Lays the app-wide values over a customer's state.
    func apply(to state: inout PurchaseState) {
        state.simulation.clock = clock
        for key in SettingKey.allCases where key.isAppWide {
            if settings.keys.contains(key) {
                state.simulation.settings.take(key, from: settings)
            } else {
                state.simulation.settings.remove(key)
            }
        }
        state.outbox.count = notificationCount
        state.outbox.journalLength = notificationsLength
        // A customer's snapshot written before nonces were the app's may still hold some: they
        // stay refused, and move here with the next write.
        let own = state.simulation.usedOfferNonces.filter { nonce in !usedOfferNonces.contains(nonce) }
        state.simulation.usedOfferNonces = usedOfferNonces + own
    }

    var json: JSONValue {
        var simulation = SimulationState()
        simulation.clock = clock
        simulation.settings = settings
        simulation.usedOfferNonces = usedOfferNonces
        guard case .object(let members) = simulation.json else { return .null }
        let kept = members.filter { $0.0 == "settings" || $0.0 == "clock" || $0.0 == "usedOfferNonces" }
        return .object([
            ("storeVersion", .int(Self.currentVersion)),
            ("simulation", .object(kept)),
            (
                "notifications",
                .object([("count", .int(notificationCount)), ("journalLength", .int(notificationsLength))])
            ),
        ])
    }

    init(_ r: Reader) throws(Reader.Failure) {
        let simulation = try r.optional("simulation").map { s throws(Reader.Failure) in try SimulationState(s) }
        clock = simulation?.clock
        usedOfferNonces = simulation?.usedOfferNonces ?? []
        for key in simulation?.settings.keys ?? [] {
            guard key.isAppWide else {
                throw Reader.Failure(
                    message: "simulation.settings.\(key.rawValue): a customer's setting, not the app's")
            }
            settings.take(key, from: simulation!.settings)
        }
        if let notifications = try r.optional("notifications") {
            notificationCount = try notifications.required("count").nonNegativeInt()
            notificationsLength = try notifications.required("journalLength").uint64()
        }
    }

    static func decode(_ data: Data, path: String) throws(StateError) -> AppState {
        try StateError.decode(data, path: path, versionKey: "storeVersion", newest: currentVersion) {
            reader throws(Reader.Failure) in try AppState(reader)
        }
    }

    var data: Data { Data(json.bytes() + [0x0A]) }
}

extension SettingKey {
    /// Whether the setting is the app's, shared by every customer, rather than a buyer's: the
    /// signed data's environment, bundle identifier and app Apple ID (App Store Connect's,
    /// one per app), the app's shared secret for `/verifyReceipt` (App Store Connect's "App-Specific
    /// Shared Secret", one per app), the clock's rate (the clock is the store's), the billing grace period and
    /// ONE_TIME_CHARGE notifications (both switched on per app in App Store Connect). The rest
    /// — storefront, locale, Ask to Buy, payments allowed, interrupted purchases, billing
    /// retry, the StoreKit errors, finishing transactions — are each customer's, as a device
    /// or an Apple Account has them.
    public var isAppWide: Bool {
        switch self {
        case .environment, .bundleID, .appAppleID, .sharedSecret, .timeRate, .gracePeriod,
            .oneTimeChargeNotifications:
            true
        default: false
        }
    }
}

extension PurchaseState {
    /// The state as a customer's snapshot keeps it: without what `AppState` keeps.
    var customerPart: PurchaseState {
        var part = self
        AppState().apply(to: &part)
        part.simulation.usedOfferNonces = []
        return part
    }
}
