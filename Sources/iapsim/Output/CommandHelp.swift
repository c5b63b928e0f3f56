/// Each command's help: what it does, its usage line, a discussion and examples.
struct CommandHelp {
    var abstract: String
    var usage: String
    var discussion: String
    var examples: [String]

    static func of(_ name: CommandName) -> CommandHelp {
        switch name {
        case .listProducts:
            return CommandHelp(
                abstract: "List the app's products with localized prices.",
                usage: "iapsim list-products [options]   (alias: list)",
                discussion: """
                    What an app's SKProductsRequest returns: each identifier in IAPProductIDs.plist that
                    the store has, in the plist's order, with its type, title, price in the storefront's
                    currency formatted for the locale, and whether the app owns it. Identifiers the
                    store lacks are reported on stderr as invalidProductIdentifiers; the rest still list.
                    """,
                examples: ["iapsim list", "iapsim list --locale de_DE", "iapsim list --json | jq '.products[].id'"])
        case .check:
            return CommandHelp(
                abstract: "Lint the app's catalog, for CI.",
                usage: "iapsim check [--catalog DIR | --storekit FILE --product-ids FILE] [options]",
                discussion: """
                    Reads the catalog leniently and reports every problem, one line each as
                    'file: product: problem': identifiers with characters App Store Connect refuses,
                    duplicates, identifiers in the plist missing from the store and the reverse,
                    products without a localization for the default locale, prices that are not plain
                    decimals or not valid for the currency (JPY, KRW, … have no decimals), subscriptions
                    of one group on the same level, unknown types, and pricing-file entries for products
                    the store lacks. Exit 0 when clean, 65 otherwise.
                    """,
                examples: [
                    "iapsim check", "iapsim check --storekit catalog/Products.storekit --product-ids catalog/IAPProductIDs.plist --json",
                ])
        case .buy:
            return CommandHelp(
                abstract: "Buy a product: purchased, cancelled, pending or failed.",
                usage: "iapsim buy <product-id> [--quantity N] [--yes] [--outcome OUTCOME | --outside-app] "
                    + "[--offer ID [--offer-signature SIG]] [--billing-plan PLAN] [--app-account-token UUID] [--as-family-member] [options]",
                discussion: """
                    A consumable adds N to its balance; a non-consumable becomes owned, and buying it
                    again is a free re-download; an auto-renewable subscription is active for one period
                    (or its introductory offer) and renews as the clock passes; a higher level of its
                    group replaces the current one at once, a lower one at the next renewal; a
                    non-renewing subscription is owned.
                    On a terminal it first asks "Buy “Title” for $0.99? [y/N]"; no is a cancel (exit 2).
                    With --yes, or when stdin is not a terminal, it does not ask.
                    The session settings (Ask to Buy, interrupted purchases, error.purchase,
                    payments-allowed) decide how it ends; --outcome overrides them for this purchase:
                    success, cancel (2), fail or fail=ERROR (1, or 2/4/5 by the error), ask-to-buy (3),
                    interrupted (6). An identifier the store lacks exits 5.
                    Ask to Buy keeps one request per product: asking again for a product that is
                    waiting starts its 24 hours again, and a request nobody answers in 24 hours of
                    simulated time expires, declined. An interrupted purchase does not complete (exit
                    6; StoreKit 1 sees a failed transaction): 'iapsim resolve ID' completes it as a new
                    transaction, which the app's next launch receives through Transaction.updates.
                    --outside-app is SKTestSession.buyProduct(identifier:): a purchase made on another
                    device or in the App Store, with no prompt and none of the app's settings; the app's
                    next launch (list, buy, restore, status) notes that Transaction.updates delivered it.
                    --offer redeems a promotional offer (for current and lapsed subscribers of the group;
                    with --offer-signature, checked against the .storekit file's subscriptionOffersKeyPair,
                    and required when it has one) or a win-back offer (lapsed subscribers); a current
                    subscriber's offer starts at the next renewal. StoreKit's refusals fail with exit 1:
                    invalidOfferIdentifier, ineligibleForOffer, missingOfferParameters, invalidOfferSignature.
                    --billing-plan monthly pays a format-5 subscription month by month within its
                    commitment (billingPlans), which auto-renew off does not shorten.
                    --app-account-token UUID is Product.PurchaseOption.appAccountToken: the transaction,
                    its renewals and a purchase left pending carry it, lowercased; anything but a UUID
                    exits 64. --as-family-member records the family organiser's purchase shared with
                    this account (ownershipType familyShared, FAMILY_SHARED when signed), charging this
                    account nothing; a product the catalog does not mark familyShareable, or a
                    consumable, exits 5. 'iapsim family revoke ID' stops the sharing.
                    """,
                examples: [
                    "iapsim buy Demo.TechoverInAppPurchase.co.Apple.Book",
                    "iapsim buy com.example.app.coins100 --quantity 3 --yes",
                    "iapsim buy com.example.app.book --outcome fail=networkError",
                    "iapsim buy com.example.app.pro.monthly --offer pro.monthly.comeback --yes",
                    "iapsim buy com.example.app.pro.monthly --outcome ask-to-buy --json",
                    "iapsim buy com.example.app.gems500 --outside-app && iapsim status",
                    "iapsim buy com.example.app.book --app-account-token 0E8F4F4A-5A3B-4C8E-9D1E-2F3A4B5C6D7E --json",
                    "iapsim buy com.example.app.book --as-family-member",
                ])
        case .redeemOfferCode:
            return CommandHelp(
                abstract: "Redeem an offer code for a subscription (the offer code redemption sheet).",
                usage: "iapsim redeem-offer-code <product-id> <offer-code> [--yes] [options]",
                discussion: """
                    AppStore.presentOfferCodeRedeemSheet: redeems one of the subscription's codeOffers,
                    named by its offerID or, when the .storekit file gives it none, its reference name
                    (what the transaction's offer id carries). Apple's eligibility applies as the file
                    sets it: new (never subscribed in the group), existing (subscribed now: the offer
                    starts at the next renewal) or expired (subscribed before). A stackable code follows
                    an introductory offer the buyer still gets. Refused codes fail as StoreKit does
                    (Product.PurchaseError invalidOfferIdentifier, ineligibleForOffer: exit 1);
                    'settings set error.offer-code-redeem ERROR' makes the sheet fail.
                    """,
                examples: [
                    "iapsim redeem-offer-code com.example.app.pro.monthly pro.winter --yes",
                    "iapsim redeem-offer-code com.example.app.pro.monthly pro.winter --yes --json",
                ])
        case .offerSignature:
            return CommandHelp(
                abstract: "Sign a promotional offer as a developer's server does.",
                usage:
                    "iapsim offer-signature <product-id> <offer-id> [--nonce UUID] [--timestamp MS] [--app-account-token UUID] [options]",
                discussion: """
                    Apple's "Generating a signature for promotional offers": ECDSA P-256 with SHA-256
                    over the bundle identifier, key identifier, product, offer, app account token (empty
                    without --app-account-token, which must then be the purchase's),
                    nonce and timestamp joined by U+2063, with the .storekit file's
                    subscriptionOffersKeyPair (the key Xcode checks promotional offers with locally).
                    Prints KEY_ID:NONCE:TIMESTAMP:SIGNATURE for 'buy --offer ID --offer-signature',
                    so a backend's own signer can be compared with it (same nonce and timestamp, same
                    payload). A catalog without a key pair is a usage error (64).
                    """,
                examples: [])
        case .restore:
            return CommandHelp(
                abstract: "Re-deliver what the account owns (restoreCompletedTransactions).",
                usage: "iapsim restore [options]",
                discussion: """
                    Re-delivers the account's restorable purchases into the app's record, as
                    restoreCompletedTransactions and AppStore.sync() do: non-consumables and active
                    auto-renewable subscriptions. Consumables and non-renewing subscriptions are not
                    restored (Apple leaves them to the app). Prints "Restored N purchases." or
                    "No purchases to restore."; exits 0 either way, or 1 when error.app-store-sync is set.
                    """,
                examples: ["iapsim reset --local && iapsim restore", "iapsim restore --json"])
        case .status:
            return CommandHelp(
                abstract: "Show what is owned: products, consumables, subscriptions, pending.",
                usage: "iapsim status [options]",
                discussion: """
                    Shows the app's purchased product identifiers and consumable balances, each
                    auto-renewable subscription's state (subscribed, expired, inBillingRetryPeriod,
                    inGracePeriod, revoked) with its expiry and whether it will renew, the purchases
                    still pending, and the transactions the app has not finished.
                    """,
                examples: ["iapsim status", "iapsim status --json | jq '.consumables'"])
        case .transactions:
            return CommandHelp(
                abstract: "List the account's transactions, like Xcode's Transaction Manager.",
                usage:
                    "iapsim transactions [--product ID] [--state STATE | --unfinished] | delete <transaction-id> [options]",
                discussion: """
                    Every transaction with its identifier, original identifier, product, state
                    (purchased, expired, upgraded, revoked; renewal; unfinished), purchase and expiry
                    dates, then the pending purchases and the Ask to Buy requests that expired
                    unanswered. --json gives each transaction with StoreKit 2's field names plus
                    "state" and "isFinished".
                    'delete ID' is SKTestSession.deleteTransaction(identifier:): the transaction leaves
                    the history, the entitlements and the app's record, for good. Deleting a
                    subscription's original transaction deletes the whole subscription: its renewals,
                    upgrades and renewal state. A pending request can be deleted too.
                    """,
                examples: [
                    "iapsim transactions", "iapsim transactions --unfinished",
                    "iapsim transactions --state pending --json",
                    "iapsim buy com.example.app.book && iapsim transactions delete 1",
                ])
        case .approve:
            return CommandHelp(
                abstract: "Approve an Ask to Buy purchase: it completes.",
                usage: "iapsim approve <transaction-id> [options]",
                discussion: """
                    SKTestSession.approveAskToBuyTransaction(identifier:): the pending purchase completes
                    with that identifier and is delivered. What it buys is decided now: a non-consumable
                    or subscription the account has by then is not charged again. A request expires
                    unanswered after 24 hours of simulated time and can no longer be approved.
                    """,
                examples: ["iapsim buy com.example.app.book --outcome ask-to-buy; iapsim approve 1"])
        case .decline:
            return CommandHelp(
                abstract: "Decline an Ask to Buy purchase: nothing is bought.",
                usage: "iapsim decline <transaction-id> [options]",
                discussion:
                    "SKTestSession.declineAskToBuyTransaction(identifier:): the pending purchase ends without a transaction.",
                examples: ["iapsim buy com.example.app.book --outcome ask-to-buy; iapsim decline 1"])
        case .resolve:
            return CommandHelp(
                abstract: "Resolve an interrupted purchase or a billing issue.",
                usage: "iapsim resolve <transaction-id> [options]",
                discussion: """
                    SKTestSession.resolveIssueForTransaction(identifier:): an interrupted purchase
                    completes as a new transaction, which the app's next launch (list, buy, restore,
                    status) receives through Transaction.updates; a subscription in billing retry
                    renews (within its grace period it keeps its billing date, after it a new period
                    starts now).
                    """,
                examples: ["iapsim buy com.example.app.book --outcome interrupted; iapsim resolve 1"])
        case .finish:
            return CommandHelp(
                abstract: "Finish a transaction the app left unfinished.",
                usage: "iapsim finish <transaction-id> [options]",
                discussion: """
                    Transaction.finish(). With 'settings set finish-transactions manual' new
                    transactions stay unfinished, and every launch (list, buy, restore, status)
                    notes on stderr that Transaction.updates re-delivered them, until they are finished.
                    """,
                examples: [
                    "iapsim settings set finish-transactions manual", "iapsim buy com.example.app.book",
                    "iapsim transactions --unfinished", "iapsim finish 1",
                ])
        case .refund:
            return CommandHelp(
                abstract: "Refund a transaction, decline a refund request, or reverse a refund.",
                usage:
                    "iapsim refund <transaction-id> [--reason developerIssue|other | --decline | --reverse] [options]",
                discussion: """
                    SKTestSession.refundTransaction(identifier:): sets revocationDate and
                    revocationReason (REFUND). A non-consumable leaves the app's record; a subscription is
                    revoked and stops renewing; a consumable's quantity comes off its balance (not below
                    zero). When the customer asked for the refund ('iapsim request-refund'), this grants
                    the request. --decline declines the request instead (REFUND_DECLINED); --reverse
                    reverses a refund granted before, after a customer's dispute (REFUND_REVERSED): the
                    revocation is undone and the app's record gets the purchase back.
                    revocationReason on that transaction only. StoreKit delivers the revoked transaction
                    through Transaction.updates (a note says so) and the app reacts; iapsim's app record
                    does what an app should: a non-consumable leaves it; a subscription's current period
                    refunded revokes the subscription, which stops renewing, while an earlier period
                    refunded leaves the subscription as it is; a consumable's quantity comes off its
                    balance (not below zero).
                    """,
                examples: [
                    "iapsim buy com.example.app.coins100", "iapsim refund 1",
                    "iapsim buy com.example.app.book && iapsim refund 2 --reason developerIssue --json",
                    "iapsim refund 2 --reverse",
                    "iapsim buy com.example.app.coins100 && iapsim request-refund 3 && iapsim refund 3 --decline",
                ])
        case .requestRefund:
            return CommandHelp(
                abstract: "Ask for a refund as the customer: pending until refund grants or declines it.",
                usage: "iapsim request-refund <transaction-id> [--reason REASON] [options]",
                discussion: """
                    Transaction.beginRefundRequest(in:): the customer asks the App Store for a refund,
                    which stays pending ('status' lists it). For a consumable or an auto-renewable
                    subscription the App Store asks the developer for consumption information first:
                    a CONSUMPTION_REQUEST notification, with --reason as its consumptionRequestReason
                    (UNINTENDED_PURCHASE, FULFILLMENT_ISSUE, UNSATISFIED_WITH_PURCHASE, LEGAL, OTHER).
                    'iapsim refund ID' grants it (REFUND), 'iapsim refund ID --decline' declines it
                    (REFUND_DECLINED). A second request while one is pending fails as
                    Transaction.RefundRequestError.duplicateRequest does (exit 64).
                    """,
                examples: [
                    "iapsim buy com.example.app.coins100 --yes",
                    "iapsim request-refund 1 --reason UNINTENDED_PURCHASE",
                    "iapsim notifications --type CONSUMPTION_REQUEST", "iapsim refund 1",
                ])
        case .family:
            return CommandHelp(
                abstract: "Family Sharing: the organiser stops sharing a purchase.",
                usage: "iapsim family revoke <transaction-id> [options]",
                discussion: """
                    A purchase shared with this account ('iapsim buy ID --as-family-member',
                    ownershipType familyShared) stops being shared, as when the organiser turns sharing
                    off or leaves the family: the transaction (for a subscription, its current period) is
                    revoked, the entitlement goes, Transaction.updates delivers the revoked transaction,
                    and the App Store sends a REVOKE notification. A transaction this account bought
                    itself is refused (exit 64): refund it instead.
                    """,
                examples: [
                    "iapsim buy com.example.app.book --as-family-member", "iapsim family revoke 1",
                ])
        case .cancelSubscription:
            return CommandHelp(
                abstract: "Turn auto-renew off: the subscription expires at its period's end.",
                usage: "iapsim cancel-subscription <product-id> [--undo] [options]",
                discussion:
                    "disableAutoRenewForTransaction(identifier:); --undo turns it back on (enableAutoRenewForTransaction).",
                examples: [
                    "iapsim buy com.example.app.pro.monthly", "iapsim cancel-subscription com.example.app.pro.monthly",
                    "iapsim cancel-subscription com.example.app.pro.monthly --undo",
                ])
        case .expire:
            return CommandHelp(
                abstract: "Expire a subscription now.",
                usage: "iapsim expire <product-id> [options]",
                discussion: "SKTestSession.expireSubscription(productIdentifier:): it ends now and does not renew.",
                examples: ["iapsim buy com.example.app.pro.monthly && iapsim expire com.example.app.pro.monthly"])
        case .renew:
            return CommandHelp(
                abstract: "Renew a subscription now.",
                usage: "iapsim renew <product-id> [options]",
                discussion:
                    "SKTestSession.forceRenewalOfSubscription(productIdentifier:): a renewal transaction now, one period long.",
                examples: ["iapsim buy com.example.app.pro.monthly && iapsim renew com.example.app.pro.monthly"])
        case .priceIncrease:
            return CommandHelp(
                abstract: "Raise a subscription's renewal price; the subscriber consents or declines.",
                usage: """
                    iapsim price-increase <product-id> <new-price> [--consent-required | --notify-only] [options]
                           iapsim price-increase consent|decline <product-id> [options]
                    """,
                discussion: """
                    A price increase for the active subscription that renews to the product, as App Store
                    Connect makes one and Xcode tests it (SKTestSession's
                    requestPriceIncreaseConsentForProduct(identifier:)). The new price is in the
                    subscription's currency and must be above its renewal price. With
                    --consent-required (the default) the subscriber must agree: PRICE_INCREASE/PENDING,
                    renewal info priceIncreaseStatus 0 (StoreKit 2: pending); 'consent' agrees
                    (PRICE_INCREASE/ACCEPTED, status 1, agreed) and the next renewal charges the new
                    price; 'decline', or no answer by the renewal, ends the subscription at its period's
                    end: EXPIRED/PRICE_INCREASE, expirationReason didNotConsentToPriceIncrease
                    (expirationIntent 3). With --notify-only the increase needs no consent:
                    PRICE_INCREASE/ACCEPTED, and it applies at the next renewal. New purchases pay the
                    catalog's price, as in Xcode.
                    """,
                examples: [
                    "iapsim buy com.example.app.pro.monthly --yes",
                    "iapsim price-increase com.example.app.pro.monthly 14.99",
                    "iapsim price-increase consent com.example.app.pro.monthly",
                    "iapsim price-increase com.example.app.pro.monthly 19.99 --notify-only --json",
                ])
        case .clock:
            return CommandHelp(
                abstract: "Show or move the simulated clock.",
                usage:
                    "iapsim clock [advance DURATION | advance --to DATE | set DATE | freeze | run | reset] [options]",
                discussion: """
                    The simulator keeps its own clock in the state. It runs at real speed, or fast
                    under the deprecated ...IsOneDay time rates, unless frozen; under the
                    monthlyRenewalEvery... rates each subscription period lasts what Apple's table
                    gives (a month 30 s at monthlyRenewalEveryThirtySeconds). 'advance P1M' or
                    'advance --to 2027-01-01T00:00:00Z' moves it forward (ISO 8601), and subscriptions
                    renew, enter billing retry or expire on the way. 'freeze' stops it (for scripts that
                    check exact dates), 'run' restarts it, 'reset' returns to real time.
                    """,
                examples: [
                    "iapsim clock", "iapsim clock advance P1M", "iapsim clock advance --to 2099-01-01T00:00:00Z",
                    "iapsim clock freeze",
                ])
        case .settings:
            return CommandHelp(
                abstract: "Show or change the session settings (SKTestSession controls).",
                usage: "iapsim settings [set KEY VALUE | reset [KEY]] [options]",
                discussion: """
                    The settings persist in the state folder. Defaults come from the .storekit file's
                    settings block (_askToBuyEnabled, _storeKitErrors, _timeRate, …) where it has them.
                    'iapsim help settings-keys' lists the keys and values; 'settings reset' is
                    SKTestSession.resetToDefaultState().
                    """,
                examples: [
                    "iapsim settings", "iapsim settings set ask-to-buy true",
                    "iapsim settings set error.purchase StoreKitError.networkError", "iapsim settings reset",
                ])
        case .reset:
            return CommandHelp(
                abstract: "Reset the app's record, the transactions, the settings, or everything.",
                usage: "iapsim reset [--local | --transactions | --settings | --all] [--yes] [options]",
                discussion: """
                    --local forgets the app's record, as deleting and reinstalling the app does; the
                    account keeps its history, so 'iapsim restore' has work to do.
                    --transactions is SKTestSession.clearTransactions(): every transaction, pending
                    request, subscription and notification goes, with the app's record; the settings
                    and the clock stay, and identifiers go on from where they were.
                    --settings is SKTestSession.resetToDefaultState(): the settings go back to the
                    catalog's and iapsim's defaults; the transactions stay.
                    --all, and a bare 'reset' as before these options, erases the purchases file
                    entirely: history, settings and clock.
                    --transactions and --all ask first on a terminal unless --yes.
                    """,
                examples: [
                    "iapsim reset --local", "iapsim reset --transactions --yes", "iapsim reset --settings",
                    "iapsim reset --all --yes",
                ])
        case .jws:
            return CommandHelp(
                abstract: "Signed data as the App Store signs it (JWS), and a decoder that checks it.",
                usage:
                    "iapsim jws transaction <id> | renewal <product-id|original-id> | app-transaction | decode [JWS] [options]",
                discussion: """
                    Prints a compact JWS (ES256) exactly as Apple's servers and StoreKit's
                    jwsRepresentation give it: JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload
                    or the AppTransaction, dated now on the simulated clock. Sandbox, Production and
                    LocalTesting data carry a three-certificate chain to iapsim's test root in x5c, so
                    Apple's SignedDataVerifier accepts it when it trusts that root ('iapsim certs export');
                    Xcode data is signed as Xcode does, with one self-signed certificate.
                    The environment is --environment, else 'settings set environment' (default Sandbox);
                    bundleId comes from 'settings set bundle-id', appAppleId from 'settings set app-apple-id'.
                    'decode' prints header and payload and whether the signature and chain verify against
                    this state's certificates (exit 0), or not (exit 65); the JWS may come on stdin.
                    """,
                examples: [
                    "iapsim buy com.example.app.pro.monthly && iapsim jws transaction 1",
                    "iapsim jws renewal com.example.app.pro.monthly --environment Production --json",
                    "iapsim jws app-transaction | iapsim jws decode",
                ])
        case .certs:
            return CommandHelp(
                abstract: "Show, export or replace the test certificates signed data uses.",
                usage: "iapsim certs [export DIR | rotate] [--certs DIR] [options]",
                discussion: """
                    A root CA, an intermediate (OID 1.2.840.113635.100.6.2.1) and a leaf (OID
                    1.2.840.113635.100.6.11.1), P-256, valid 1970–9999, plus an Xcode-style self-signed
                    certificate: made on first use in the state folder's certs (or --certs DIR,
                    IAPSIM_CERTS_DIR, to pin one chain across CI jobs), keys mode 0600. Every subject says
                    iapsim TEST ONLY: they protect nothing. 'export DIR' writes root.pem, root.der,
                    intermediate.pem, leaf.pem and xcode.pem for a backend's tests to trust;
                    'rotate' makes a new chain.
                    """,
                examples: ["iapsim certs", "iapsim certs export ./trusted && openssl x509 -in trusted/root.pem -noout -subject"])
        case .notifications:
            return CommandHelp(
                abstract: "List the App Store Server Notifications the account raised, and their deliveries.",
                usage:
                    "iapsim notifications [--type TYPE[/SUBTYPE]] [--transaction ID] [--only-failures] [--since DATE] [--until DATE] | show <uuid>",
                discussion: """
                    Every event the App Store notifies a backend of is recorded as it happens, on the
                    simulated clock and in the same locked write as the change: SUBSCRIBED (INITIAL_BUY,
                    RESUBSCRIBE), DID_RENEW (BILLING_RECOVERY), DID_FAIL_TO_RENEW (GRACE_PERIOD),
                    GRACE_PERIOD_EXPIRED, EXPIRED (VOLUNTARY, BILLING_RETRY), DID_CHANGE_RENEWAL_STATUS,
                    DID_CHANGE_RENEWAL_PREF (UPGRADE, DOWNGRADE), REFUND, ONE_TIME_CHARGE and TEST; renewals
                    caught up by 'clock advance' each get their own, at their own time. The list shows
                    each one's delivery attempts ('iapsim listen' makes them); 'show' prints the signed
                    payload as it is POSTed and its decoded form.
                    """,
                examples: [
                    "iapsim buy com.example.app.pro.monthly && iapsim clock advance P1M && iapsim notifications",
                    "iapsim notifications --type DID_RENEW --json",
                    "iapsim notifications show \"$(iapsim notifications --json | jq -r '.notifications[0].notificationUUID')\"",
                ])
        case .listen:
            return CommandHelp(
                abstract: "Deliver notifications to a webhook, as the App Store does (stripe listen for Apple).",
                usage:
                    "iapsim listen --forward-to URL [--drain] [--events TYPE,…] [--timeout S] [--header 'K: V'] [options]",
                discussion: """
                    POSTs each due notification, in order, as {"signedPayload": "<JWS>"} (Content-Type:
                    application/json) to URL, and prints one line per attempt. HTTP 200-206 is success;
                    any other status, a timeout or a refused connection is a failed attempt, recorded
                    with Apple's sendAttemptResult and retried on Apple's schedule on the simulated clock:
                    in Production 1, 12, 24, 48 and 72 hours after the previous attempt (so 'clock advance
                    P3D' replays them), in the sandbox never. Without --drain it runs until SIGINT or
                    SIGTERM, picking up what other iapsim processes append; with --drain it delivers
                    what is due and exits, for scripts and CI. Plain http:// only: the static build has
                    no TLS. Payloads are signed at delivery with the test certificates ('iapsim certs').
                    """,
                examples: [
                    "iapsim buy com.example.app.book; iapsim listen --forward-to http://127.0.0.1:9/hook --drain --timeout 1"
                ])
        case .trigger:
            return CommandHelp(
                abstract: "Make the events happen that raise one notification (stripe trigger for Apple).",
                usage: "iapsim trigger TYPE[/SUBTYPE] [--product ID] | --list",
                discussion: """
                    Runs, on the current state, the purchases, clock moves, renewals and refunds that lead
                    to the notification, so 'iapsim trigger DID_FAIL_TO_RENEW/GRACE_PERIOD' is one command;
                    settings it needs on the way (billing retry, grace period) are put back after. It
                    prints every notification the events raised. --list shows what it can trigger.
                    """,
                examples: [
                    "iapsim trigger --list", "iapsim trigger DID_FAIL_TO_RENEW/GRACE_PERIOD",
                    "iapsim trigger REFUND --product com.example.app.book --json",
                ])
        case .notifyTest:
            return CommandHelp(
                abstract: "Queue a TEST notification (Request a Test Notification).",
                usage: "iapsim notify-test [options]",
                discussion: """
                    Queues a TEST notification, whose data holds only the app and the environment, and
                    prints its token (its notificationUUID); 'iapsim listen' delivers it.
                    """,
                examples: ["iapsim notify-test && iapsim notifications --type TEST"])
        case .serve:
            return CommandHelp(
                abstract: "Serve the App Store Server API on this machine, from this state.",
                usage:
                    "iapsim serve [--port N] [--host ADDRESS] [--port-file FILE] [--key-file FILE --key-id ID --issuer-id ID]",
                discussion: """
                    Answers Apple's App Store Server API (paths, bodies and error codes as Apple's) from
                    the state the CLI writes, so a backend's tests run Apple's own client against a
                    local, scriptable App Store: Get Transaction Info, Get Transaction History (v1, v2),
                    Get All Subscription Statuses, Get Refund History, Look Up Order ID, Send Consumption
                    Information, Request a Test Notification and its status, Get Notification History,
                    Extend a Subscription Renewal Date (one, or all active subscribers and its status),
                    Get App Transaction Info and Set App Account Token. A purchase made with 'iapsim buy'
                    in another shell is visible to the next request. Signed items are signed as 'iapsim
                    jws' signs them. Requests need 'Authorization: Bearer <ES256 JWT>' with aud
                    appstoreconnect-v1, bid the bundle id and exp within the hour; with --key-file (the
                    .p8 App Store Connect gives), the signature must verify with that key, else any
                    well-formed token is accepted and the server says so. It prints 'Listening on
                    http://HOST:PORT' (--port 0, the default, picks a free port; --port-file writes
                    it) and serves until SIGINT or SIGTERM, then exits 0.
                    """,
                examples: ["iapsim serve --port 0 --port-file /tmp/iapsim.port & sleep 1; kill %1"])
        case .completion:
            return CommandHelp(
                abstract: "Print a shell completion script: bash, zsh or fish.",
                usage: "iapsim completion bash|zsh|fish",
                discussion: """
                    Completes commands, options and their values, and product identifiers from the
                    current catalog. 'make install' installs all three; to try one now:
                    source <(iapsim completion bash)
                    """,
                examples: [
                    "source <(iapsim completion bash)",
                    "mkdir -p ~/.config/fish/completions && iapsim completion fish > ~/.config/fish/completions/iapsim.fish",
                ])
        case .help:
            return CommandHelp(
                abstract: "Show help for a command or topic.",
                usage: "iapsim help [<command> | exit-codes | environment | errors | settings-keys]",
                discussion: "Shows help. 'iapsim help <command>' and 'iapsim <command> --help' agree.",
                examples: ["iapsim help buy", "iapsim help exit-codes"])
        }
    }
}
