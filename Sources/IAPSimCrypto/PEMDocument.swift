/// A PEM block (RFC 7468): a label such as "CERTIFICATE" and the DER bytes it armours.
public struct PEMDocument: Equatable, Sendable {
    /// The text between "-----BEGIN " and "-----", e.g. "PRIVATE KEY".
    public let label: String
    /// The decoded contents.
    public let derBytes: [UInt8]

    /// Creates a block to be written.
    public init(label: String, derBytes: [UInt8]) {
        self.label = label
        self.derBytes = derBytes
    }

    /// The armoured text: 64-character Base64 lines, ending in a newline.
    public var pemString: String {
        var lines = ["-----BEGIN \(label)-----"]
        let body = Base64.encode(derBytes)
        var start = body.startIndex
        while start < body.endIndex {
            let end = body.index(start, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex
            lines.append(String(body[start..<end]))
            start = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses the first block labelled `label` in `text` (other blocks and text around
    /// them are skipped, as openssl writes "EC PARAMETERS" before "EC PRIVATE KEY").
    /// - Throws: `CryptoError.pemBlockNotFound` or `.malformedPEM`.
    public init(pemString text: String, label: String) throws(CryptoError) {
        self = try Self.first(in: text, labelled: [label])
    }

    /// The first block of `text` whose label is one of `labels` (a key file may be PKCS #8 or
    /// its algorithm's own form); `.pemBlockNotFound` names the first label.
    public static func first(in text: String, labelled labels: [String]) throws(CryptoError) -> PEMDocument {
        for block in try parseAll(text) where labels.contains(block.label) { return block }
        throw .pemBlockNotFound(label: labels.first ?? "")
    }

    /// Parses every block in `text`, in order.
    ///
    /// Strict within a block: the END label must match the BEGIN label, only Base64 lines
    /// (with canonical padding) may appear between them, and encapsulated headers such as
    /// "Proc-Type" (encrypted legacy keys) are refused.
    public static func parseAll(_ text: String) throws(CryptoError) -> [PEMDocument] {
        var documents = [PEMDocument]()
        var currentLabel: String?
        var body = ""
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for rawLine in lines {
            let line = rawLine.trimmingSuffix(while: { $0 == "\r" || $0 == " " || $0 == "\t" })
            if let label = currentLabel {
                if line.hasPrefix("-----END ") {
                    guard line == "-----END \(label)-----" else {
                        throw .malformedPEM("\"\(line)\" does not close \"-----BEGIN \(label)-----\"")
                    }
                    let bytes: [UInt8]
                    do {
                        bytes = try Base64.decode(body)
                    } catch {
                        throw .malformedPEM(
                            "the \(label) block is not valid Base64 (\(error.errorDescription ?? "\(error)"))")
                    }
                    documents.append(PEMDocument(label: label, derBytes: bytes))
                    currentLabel = nil
                    body = ""
                } else if line.contains(":") {
                    throw .malformedPEM("the \(label) block has headers (encrypted PEM is not supported)")
                } else if line.hasPrefix("-----") {
                    throw .malformedPEM("the \(label) block is not closed")
                } else {
                    body += line
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
                let label = String(line.dropFirst(11).dropLast(5))
                guard !label.isEmpty, label.allSatisfy({ $0.isASCII && ($0.isUppercase || $0 == " " || $0.isNumber) })
                else {
                    throw .malformedPEM("\"\(line)\" is not a valid BEGIN line")
                }
                currentLabel = label
            }
        }
        if let label = currentLabel {
            throw .malformedPEM("the \(label) block has no END line")
        }
        guard !documents.isEmpty else { throw .pemBlockNotFound(label: nil) }
        return documents
    }
}

extension Substring {
    /// The substring without trailing characters matching `predicate`.
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex {
            let previous = index(before: end)
            guard predicate(self[previous]) else { break }
            end = previous
        }
        return self[startIndex..<end]
    }
}
