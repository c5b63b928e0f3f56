/// The page `iapsim ui` serves: hand-written HTML, CSS and JavaScript in `Page/` (index.html,
/// app.css, app.js, views.js and buy.js), embedded in the binary by SwiftPM (`embedInCode`) so it works offline
/// and needs no package; `make test` checks the script with `node --check`. It holds no secret
/// (the browser proves itself with the session cookie it got at the sign-in link);
/// `{{ACCOUNT}}` is replaced by the customer `iapsim ui` started with (the picker's first
/// choice). The script draws what the commands' `--json` says and sends each button's words
/// to `/api/action`; it decides nothing about the App Store.
enum PageSource {
    static let html = String(decoding: PackageResources.index_html, as: UTF8.self)
    static let style = String(decoding: PackageResources.app_css, as: UTF8.self)
    /// The page's behaviour. Every view is one command's `--json` (through `/api/read/…` and
    /// `/api/rows/…`); every button sends the words of one command to `/api/action`. Text from
    /// the state is set with `textContent`, never parsed as HTML. The customer is the page's
    /// choice (`view.account`, from the picker): every read names it in `?account=`, every
    /// action carries `--account NAME`.
    static let script = String(decoding: PackageResources.app_js, as: UTF8.self)
    /// The views `script` draws, one per command's `--json`, with their buttons.
    static let views = String(decoding: PackageResources.views_js, as: UTF8.self)
    /// "Buy with options": its fields built from `iapsim help buy --json`.
    static let buyForm = String(decoding: PackageResources.buy_js, as: UTF8.self)
    /// Every file the page is made of, by the name it is served under.
    static let files: [(name: String, text: String, type: String)] = [
        ("index.html", html, "text/html"), ("app.css", style, "text/css"), ("app.js", script, "text/javascript"),
        ("views.js", views, "text/javascript"), ("buy.js", buyForm, "text/javascript"),
    ]
}
