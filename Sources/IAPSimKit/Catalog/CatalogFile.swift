import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading a catalog file, with errors that name it.
enum CatalogFile {
    static func read(_ path: String) throws -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            if !FileSystem.exists(path) { throw CatalogError.fileNotFound(path: path) }
            if FileSystem.isDirectory(path) { throw CatalogError.unreadable(path: path, reason: "is a directory") }
            throw CatalogError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if data.isEmpty { throw CatalogError.emptyFile(path: path) }
        return data
    }
}
