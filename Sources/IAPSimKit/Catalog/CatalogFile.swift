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

extension DecodingError {
    /// `products[2].displayPrice: expected a string, found a number`: where and what, without
    /// Foundation's generic "The data couldn't be read" wording.
    var readableDescription: String {
        func location(_ path: [any CodingKey]) -> String {
            var text = ""
            for key in path {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return text.isEmpty ? "the root" : text
        }
        switch self {
        case .typeMismatch(let type, let context):
            return "\(location(context.codingPath)): expected \(Self.describe(type))"
        case .valueNotFound(let type, let context):
            return "\(location(context.codingPath)): expected \(Self.describe(type)), found null"
        case .keyNotFound(let key, let context):
            return "\(location(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
                return "malformed JSON" + (detail.map { " (\($0))" } ?? "")
            }
            return "\(location(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "malformed JSON"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        case is [Any].Type: "an array"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
