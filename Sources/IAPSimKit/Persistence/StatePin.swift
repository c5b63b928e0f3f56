import Foundation

/// One request's view of the state: the first look at each part (the snapshot, the state with
/// its journal replayed, the app's settings, `store.json`) is read, and every later look in the
/// same request gets the same one. A server request reads the state several times — its
/// token's clock, the app's settings, the answer, its `Date` header — and so answers from one
/// version of it, with one set of `stat` calls; the next request pins again and sees every
/// change made since, from a shell or another request. A write made through the pinned store
/// (`holdingLock`) forgets the view, so the request reads what it wrote.
final class StatePin: @unchecked Sendable {
    private let lock = NSLock()
    private var snapshot: PurchaseState?
    private var state: PurchaseState?
    private var appSettings: SettingOverrides?
    /// `store.json` as read (nil inside: there is none).
    private var appState: AppState??

    func snapshot(_ read: () throws(StateError) -> PurchaseState) throws(StateError) -> PurchaseState {
        try remembered(\.snapshot, read)
    }

    func state(_ read: () throws(StateError) -> PurchaseState) throws(StateError) -> PurchaseState {
        try remembered(\.state, read)
    }

    func appSettings(_ read: () throws(StateError) -> SettingOverrides) throws(StateError) -> SettingOverrides {
        try remembered(\.appSettings, read)
    }

    func appState(_ read: () throws(StateError) -> AppState?) throws(StateError) -> AppState? {
        try remembered(\.appState, read)
    }

    func forget() {
        lock.withLock {
            snapshot = nil
            state = nil
            appSettings = nil
            appState = nil
        }
    }

    private func remembered<Value>(
        _ slot: ReferenceWritableKeyPath<StatePin, Value?>, _ read: () throws(StateError) -> Value
    ) throws(StateError) -> Value {
        if let known = lock.withLock({ self[keyPath: slot] }) { return known }
        let value = try read()
        lock.withLock { self[keyPath: slot] = value }
        return value
    }
}

extension StateStore {
    /// This store with a view of its own for one request (`StatePin`): copies of the result share
    /// it; `forAccount` gives another customer's store, unpinned.
    public func pinned() -> StateStore {
        StateStore(location: location, cache: cache, pin: StatePin())
    }

    /// The snapshot, as `readSnapshot`, from the pinned view when there is one: for readers
    /// without the lock.
    func snapshotView() throws(StateError) -> PurchaseState {
        guard let pin else { return try readSnapshot() }
        return try pin.snapshot(readSnapshot)
    }
}
