import Foundation
import Testing

@testable import IAPSimKit

@Suite struct StateStoreTests {
    private func mode(_ path: String) throws -> Int {
        (try FileManager().attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func anAbsentFileIsAnEmptyState() throws {
        #expect(try Support.store().read() == PurchaseState())
    }

    @Test func writesAFile0600InAFolder0700AndReadsItBack() throws {
        let store = Support.store()
        _ = try store.update { $0.app.deliver("a.b") }
        #expect(try store.read().app.purchasedProductIdentifiers == ["a.b"])
        #expect(try mode(store.location.statePath) == 0o600)
        #expect(try mode(store.location.directory) == 0o700)
        let text = try String(contentsOfFile: store.location.statePath, encoding: .utf8)
        #expect(text.contains("\"schemaVersion\": 5"))
    }

    @Test(arguments: [
        ("truncated", Data("{\"schemaVersion\": 1, \"acc".utf8)),
        ("binary garbage", Data([0x00, 0xFF, 0x13, 0x37, 0x80])),
        ("wrong shape", Data("{\"schemaVersion\": 1, \"account\": []}".utf8)),
        ("an array", Data("[1, 2]".utf8)),
        ("empty", Data()),
    ])
    func anUnreadableFileIsNeverOverwritten(kind: String, bytes: Data) throws {
        let store = Support.store()
        try FileManager().createDirectory(atPath: store.location.directory, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: store.location.statePath))
        let error = try #require(throws: StateError.self) { try store.update { $0.app.deliver("x") } }
        guard case .corrupt(let path, _) = error else {
            Issue.record("expected corrupt, got \(error)")
            return
        }
        #expect(path == store.location.statePath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.location.statePath)) == bytes, "\(kind)")
        #expect(FileManager().fileExists(atPath: store.location.statePath))
    }

    @Test func aNewerSchemaIsLeftUntouched() throws {
        let store = Support.store()
        try FileManager().createDirectory(atPath: store.location.directory, withIntermediateDirectories: true)
        let bytes = Data("{\"schemaVersion\": 99, \"future\": true}".utf8)
        try bytes.write(to: URL(fileURLWithPath: store.location.statePath))
        #expect(throws: StateError.newerSchema(path: store.location.statePath, version: 99)) {
            try store.update { $0.app.deliver("x") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.location.statePath)) == bytes)
    }

    @Test func concurrentUpdatesAreAllKept() async throws {
        let store = Support.store()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask { _ = try? store.update { $0.app.consumables["coin", default: 0] += 1 } }
            }
        }
        #expect(try store.read().app.consumables["coin"] == 40)
    }

    @Test func aHeldLockTimesOutAsBusy() throws {
        let directory = Support.temporaryDirectory() + "/state"
        let holder = StateStore(location: StateLocation(directory: directory, lockTimeout: 5))
        let waiter = StateStore(location: StateLocation(directory: directory, lockTimeout: 0.1))
        _ = try holder.update { _ in
            #expect(throws: StateError.busy(path: waiter.location.lockPath, seconds: 0.1)) {
                try waiter.update { $0.app.deliver("x") }
            }
        }
    }

    @Test func aSymlinkedStateFileIsFollowedAndKept() throws {
        let store = Support.store()
        let elsewhere = Support.temporaryDirectory() + "/real.json"
        try FileManager().createDirectory(atPath: store.location.directory, withIntermediateDirectories: true)
        try FileManager().createSymbolicLink(atPath: store.location.statePath, withDestinationPath: elsewhere)
        _ = try store.update { $0.app.deliver("linked") }
        #expect(try FileManager().destinationOfSymbolicLink(atPath: store.location.statePath) == elsewhere)
        #expect(try String(contentsOfFile: elsewhere, encoding: .utf8).contains("linked"))
    }

    @Test func aFolderThatCannotBeMadeIsCannotCreate() throws {
        let file = Support.temporaryDirectory() + "/plain-file"
        try Data().write(to: URL(fileURLWithPath: file))
        let store = StateStore(location: StateLocation(directory: file + "/state"))
        let error = try #require(throws: StateError.self) { try store.update { $0.app.deliver("x") } }
        guard case .cannotCreate = error else {
            Issue.record("expected cannotCreate, got \(error)")
            return
        }
    }
}

@Suite struct StateLocationTests {
    @Test func precedenceIsFlagThenVariableThenXDGThenHome() throws {
        let context = Support.context(environment: [
            "IAPSIM_STATE_DIR": "/env/state", "XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u",
        ])
        #expect(try StateLocation.resolve(stateDirectory: "/flag", context: context).directory == "/flag")
        #expect(try StateLocation.resolve(stateDirectory: nil, context: context).directory == "/env/state")
        let xdg = Support.context(environment: ["XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"])
        #expect(try StateLocation.resolve(stateDirectory: nil, context: xdg).statePath == "/xdg/iapsim/purchases.json")
        let relativeXDG = Support.context(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/home/u"])
        #expect(
            try StateLocation.resolve(stateDirectory: nil, context: relativeXDG).directory == "/home/u/.config/iapsim")
        var mac = Support.context(environment: ["HOME": "/Users/u"])
        mac.platform = .macOS
        #expect(
            try StateLocation.resolve(stateDirectory: nil, context: mac).directory
                == "/Users/u/Library/Application Support/iapsim")
    }

    @Test func noHomeAndNoFolderIsAnError() {
        #expect(throws: StateError.noStateDirectory) {
            try StateLocation.resolve(stateDirectory: nil, context: Support.context(environment: ["HOME": ""]))
        }
    }

    @Test func lockTimeoutComesFromTheEnvironment() throws {
        let context = Support.context(environment: ["IAPSIM_LOCK_TIMEOUT": "0.5", "HOME": "/h"])
        #expect(try StateLocation.resolve(stateDirectory: nil, context: context).lockTimeout == 0.5)
        #expect(throws: StateError.invalidLockTimeout(value: "soon")) {
            try StateLocation.resolve(
                stateDirectory: nil, context: Support.context(environment: ["IAPSIM_LOCK_TIMEOUT": "soon"]))
        }
    }
}

@Suite struct CatalogSourceTests {
    @Test func precedenceIsFlagThenVariableThenLocalFolder() throws {
        let context = Support.context(environment: ["IAPSIM_CATALOG": "/env/catalog"])
        let flag = try CatalogSource.resolve(
            catalogDirectory: "/flag", storeKitFile: nil, productIDsFile: nil, context: context)
        #expect(
            flag == CatalogSource(storeKitPath: "/flag/Products.storekit", productIDsPath: "/flag/IAPProductIDs.plist"))
        let env = try CatalogSource.resolve(
            catalogDirectory: nil, storeKitFile: nil, productIDsFile: "ids.plist", context: context)
        #expect(env.storeKitPath == "/env/catalog/Products.storekit")
        #expect(env.productIDsPath == context.currentDirectory + "/ids.plist")
    }

    @Test func aStoreKitFileAloneRequestsEveryProduct() throws {
        let source = try CatalogSource.resolve(
            catalogDirectory: nil, storeKitFile: "/x/App.storekit", productIDsFile: nil, context: Support.context())
        #expect(source == CatalogSource(storeKitPath: "/x/App.storekit", productIDsPath: nil))
    }

    @Test func findsTheLocalThenTheInstalledCatalog() throws {
        var context = Support.context()
        #expect(throws: CatalogError.self) {
            try CatalogSource.resolve(catalogDirectory: nil, storeKitFile: nil, productIDsFile: nil, context: context)
        }
        context.installedCatalogDirectory = Support.repositoryRoot + "/catalog"
        let installed = try CatalogSource.resolve(
            catalogDirectory: nil, storeKitFile: nil, productIDsFile: nil, context: context)
        #expect(installed.storeKitPath == Support.repositoryRoot + "/catalog/Products.storekit")
        context.currentDirectory = Support.repositoryRoot
        context.installedCatalogDirectory = nil
        let local = try CatalogSource.resolve(
            catalogDirectory: nil, storeKitFile: nil, productIDsFile: nil, context: context)
        #expect(local.storeKitPath == Support.repositoryRoot + "/catalog/Products.storekit")
    }
}
