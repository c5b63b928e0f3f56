import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading a catalog file, with errors that name it.
enum CatalogFile {
    static func read(_ path: String) throws(CatalogError) -> Data {
        let data: Data?
        do {
            data = try POSIXFile.readIfPresent(path)
        } catch {
            throw CatalogError.unreadable(path: path, reason: error.code == EISDIR ? "is a directory" : error.reason)
        }
        guard let data else { throw CatalogError.fileNotFound(path: path) }
        if data.isEmpty { throw CatalogError.emptyFile(path: path) }
        return data
    }
}
