import Foundation

/// `transactions.idx`, the index beside the journal: where each transaction's latest version
/// is, and which transactions each product and each subscription chain holds, so a look-up
/// reads a few fixed-width records and one journal line instead of the whole journal.
///
/// One file of little-endian fixed-width parts (docs/STORAGE.md has the table):
///
/// - a 128-byte header: the format, the journal it was made from (size, device, inode,
///   modification time), the boot it was written in, the counts, and a checksum;
/// - name slots (32 bytes each: a product or subscription group identifier's hash, its place
///   in the heap, and the first and last record of the product), then the names' bytes;
/// - one 80-byte record per transaction, in identifier order: the journal offset of its latest
///   version, the fields filters need, the next record of its product and of its chain, and a
///   checksum that covers the record's position too.
///
/// It is written without fsync, in the locked step that appends to the journal: records
/// first, the header last. It is trusted only when its header's checksum holds, the journal
/// still has the size, inode and modification time the header names, and the system has not
/// restarted since (a crash of the machine may have kept any part of what was not synced).
/// Anything else — missing, stale, torn, copied from another folder — and it is rebuilt from
/// the journal, which stays the one record of what happened.
struct TransactionIndex {
    static let magic: [UInt8] = Array("iapsimix".utf8)
    /// 2: records carry the deleted flag. An index of format 1 is rebuilt, so one written by
    /// an iapsim that did not know deletions is never trusted over a journal that has them.
    static let version: UInt32 = 2
    static let headerSize = 128
    static let slotSize = 32
    static let recordSize = 80

    /// What the header says.
    struct Header: Equatable {
        var journal = FileSignature.absent
        var boot = [UInt8](repeating: 0, count: 16)
        var recordCount: UInt64 = 0
        var nameCount: UInt32 = 0
        var nameCapacity: UInt32 = 0
        var heapUsed: UInt32 = 0
        var heapCapacity: UInt32 = 0
        /// The largest transaction identifier recorded; 0 with no records.
        var maxID: UInt64 = 0
        /// Where the journal's complete lines end: the next line is appended there.
        var coveredLength: UInt64 = 0

        var heapOffset: Int { TransactionIndex.headerSize + TransactionIndex.slotSize * Int(nameCapacity) }
        var recordsOffset: Int { (heapOffset + Int(heapCapacity) + 7) & ~7 }
        var fileSize: UInt64 { UInt64(recordsOffset) + recordCount * UInt64(TransactionIndex.recordSize) }

        func encoded() -> [UInt8] {
            var out = IndexBytes(count: TransactionIndex.headerSize)
            out.put(TransactionIndex.magic, at: 0)
            out.put32(TransactionIndex.version, at: 8)
            out.put32(UInt32(TransactionIndex.recordSize), at: 12)
            out.put64(journal.size, at: 16)
            out.put64(journal.device, at: 24)
            out.put64(journal.inode, at: 32)
            out.put64(UInt64(bitPattern: journal.modifiedSeconds), at: 40)
            out.put64(UInt64(bitPattern: journal.modifiedNanoseconds), at: 48)
            out.put64(recordCount, at: 56)
            out.put32(nameCount, at: 64)
            out.put32(nameCapacity, at: 68)
            out.put32(heapUsed, at: 72)
            out.put32(heapCapacity, at: 76)
            out.put(boot, at: 80)
            out.put64(maxID, at: 96)
            out.put64(coveredLength, at: 104)
            out.seal(checksumAt: 120, seed: IndexChecksum.headerSeed)
            return out.bytes
        }

        /// The header in `bytes`, if it is one this iapsim wrote whole.
        init?(_ bytes: [UInt8]) {
            guard bytes.count == TransactionIndex.headerSize, Array(bytes[0..<8]) == TransactionIndex.magic else {
                return nil
            }
            let view = IndexBytes(bytes)
            guard view.isSealed(checksumAt: 120, seed: IndexChecksum.headerSeed),
                view.get32(8) == TransactionIndex.version, view.get32(12) == UInt32(TransactionIndex.recordSize)
            else { return nil }
            journal = FileSignature(
                size: view.get64(16), device: view.get64(24), inode: view.get64(32),
                modifiedSeconds: Int64(bitPattern: view.get64(40)),
                modifiedNanoseconds: Int64(bitPattern: view.get64(48)))
            recordCount = view.get64(56)
            nameCount = view.get32(64)
            nameCapacity = view.get32(68)
            heapUsed = view.get32(72)
            heapCapacity = view.get32(76)
            boot = Array(bytes[80..<96])
            maxID = view.get64(96)
            coveredLength = view.get64(104)
            // Counts a file of this size could hold, so no offset below overflows.
            guard nameCount <= nameCapacity, nameCapacity <= 1 << 24, heapUsed <= heapCapacity,
                heapCapacity <= 1 << 30, recordCount <= UInt64(UInt32.max - 1), coveredLength <= journal.size
            else { return nil }
        }

        init() {}
    }

    /// One transaction in its latest version.
    struct Record: Equatable {
        var id: UInt64
        var originalID: UInt64
        /// Where the journal line of the latest version starts.
        var offset: UInt64
        /// Dates exactly as the transaction has them (the bits of seconds since 1970).
        var purchaseDate: Date
        var expirationDate: Date?
        var revocationDate: Date?
        var productKey: UInt32
        var groupKey: UInt32?
        /// The next record (by position) of the same product, of the same chain; nil at the end.
        var nextOfProduct: UInt32?
        var nextOfChain: UInt32?
        /// In the first record of a chain: the chain's last record.
        var chainTail: UInt32?
        var productType: ProductType
        var isUpgraded: Bool
        var isRenewal: Bool
        /// The latest version is a deletion (`Transaction.deletionDate`): look-ups pass over it.
        var isDeleted = false
        /// `Transaction.ownershipType` is `familyShared`: the history's `inAppOwnershipType`
        /// filter needs it. Indexes written before family sharing never set it, rightly.
        var isFamilyShared = false

        /// A missing date: a NaN no date has.
        static let none = UInt64.max
        /// The product type's two bits in `flags`.
        static let types: [ProductType] = [.consumable, .nonConsumable, .autoRenewable, .nonRenewable]

        static func code(_ type: ProductType) -> UInt32 {
            switch type {
            case .consumable: 0
            case .nonConsumable: 1
            case .autoRenewable: 2
            case .nonRenewable: 3
            }
        }

        func encode(into out: inout IndexBytes, at base: Int, position: Int) {
            out.put64(id, at: base)
            out.put64(originalID, at: base + 8)
            out.put64(offset, at: base + 16)
            out.put64(purchaseDate.timeIntervalSince1970.bitPattern, at: base + 24)
            out.put64(expirationDate?.timeIntervalSince1970.bitPattern ?? Self.none, at: base + 32)
            out.put64(revocationDate?.timeIntervalSince1970.bitPattern ?? Self.none, at: base + 40)
            out.put32(productKey, at: base + 48)
            out.put32(groupKey.map { $0 + 1 } ?? 0, at: base + 52)
            out.put32(nextOfProduct.map { $0 + 1 } ?? 0, at: base + 56)
            out.put32(nextOfChain.map { $0 + 1 } ?? 0, at: base + 60)
            out.put32(chainTail.map { $0 + 1 } ?? 0, at: base + 64)
            let flags =
                Self.code(productType) | (isUpgraded ? 4 : 0) | (isRenewal ? 8 : 0) | (isDeleted ? 16 : 0)
                | (isFamilyShared ? 32 : 0)
            out.put32(flags, at: base + 68)
            out.seal(checksumAt: base + 72, from: base, seed: IndexChecksum.recordSeed ^ UInt64(position))
        }

        /// The record at `base` of `bytes`, which must be the record at `position`: its
        /// checksum covers both. Links must point forward, so no walk can loop.
        init?(_ bytes: IndexBytes, at base: Int, position: Int) {
            guard bytes.isSealed(checksumAt: base + 72, from: base, seed: IndexChecksum.recordSeed ^ UInt64(position))
            else {
                return nil
            }
            func link(_ offset: Int) -> UInt32?? {
                let raw = bytes.get32(base + offset)
                if raw == 0 { return .some(nil) }
                return raw - 1 > UInt32(position) ? .some(raw - 1) : nil
            }
            let flags = bytes.get32(base + 68)
            guard flags & ~0x3F == 0, let nextOfProduct = link(56), let nextOfChain = link(60) else { return nil }
            let tail = bytes.get32(base + 64)
            guard tail == 0 || tail - 1 >= UInt32(position) else { return nil }
            let group = bytes.get32(base + 52)
            id = bytes.get64(base)
            originalID = bytes.get64(base + 8)
            offset = bytes.get64(base + 16)
            func date(_ offset: Int) -> Date? {
                let bits = bytes.get64(base + offset)
                return bits == Self.none ? nil : Date(timeIntervalSince1970: Double(bitPattern: bits))
            }
            purchaseDate = date(24) ?? Date(timeIntervalSince1970: 0)
            expirationDate = date(32)
            revocationDate = date(40)
            productKey = bytes.get32(base + 48)
            groupKey = group == 0 ? nil : group - 1
            self.nextOfProduct = nextOfProduct
            self.nextOfChain = nextOfChain
            chainTail = tail == 0 ? nil : tail - 1
            productType = Self.types[Int(flags & 3)]
            isUpgraded = flags & 4 != 0
            isRenewal = flags & 8 != 0
            isDeleted = flags & 16 != 0
            isFamilyShared = flags & 32 != 0
        }

        init(
            id: UInt64, originalID: UInt64, offset: UInt64, purchaseDate: Date, expirationDate: Date?,
            revocationDate: Date?, productKey: UInt32, groupKey: UInt32?, productType: ProductType, isUpgraded: Bool,
            isRenewal: Bool, isDeleted: Bool = false, isFamilyShared: Bool = false
        ) {
            self.id = id
            self.originalID = originalID
            self.offset = offset
            self.purchaseDate = purchaseDate
            self.expirationDate = expirationDate
            self.revocationDate = revocationDate
            self.productKey = productKey
            self.groupKey = groupKey
            self.productType = productType
            self.isUpgraded = isUpgraded
            self.isRenewal = isRenewal
            self.isDeleted = isDeleted
            self.isFamilyShared = isFamilyShared
        }

        init(_ transaction: Transaction, offset: UInt64, productKey: UInt32, groupKey: UInt32?) {
            self.init(
                id: transaction.id, originalID: transaction.originalID, offset: offset,
                purchaseDate: transaction.purchaseDate, expirationDate: transaction.expirationDate,
                revocationDate: transaction.revocationDate, productKey: productKey, groupKey: groupKey,
                productType: transaction.productType, isUpgraded: transaction.isUpgraded,
                isRenewal: transaction.reason == .renewal, isDeleted: transaction.deletionDate != nil,
                isFamilyShared: transaction.ownershipType == .familyShared)
        }

        /// The fields a later version may change, taken from `other`.
        mutating func update(from other: Record) {
            offset = other.offset
            purchaseDate = other.purchaseDate
            expirationDate = other.expirationDate
            revocationDate = other.revocationDate
            productType = other.productType
            isUpgraded = other.isUpgraded
            isRenewal = other.isRenewal
            isDeleted = other.isDeleted
            isFamilyShared = other.isFamilyShared
        }

        /// Whether `other`, a later version, keeps what the links depend on.
        func keepsLinks(of other: Record) -> Bool {
            id == other.id && originalID == other.originalID && productKey == other.productKey
                && groupKey == other.groupKey
        }
    }

    /// A product or subscription group identifier, and for a product its first and last record.
    struct Slot: Equatable {
        var hash: UInt64
        var heapOffset: UInt32
        var length: UInt32
        var head: UInt32?
        var tail: UInt32?

        func encode(into out: inout IndexBytes, at base: Int, key: Int) {
            out.put64(hash, at: base)
            out.put32(heapOffset, at: base + 8)
            out.put32(length, at: base + 12)
            out.put32(head.map { $0 + 1 } ?? 0, at: base + 16)
            out.put32(tail.map { $0 + 1 } ?? 0, at: base + 20)
            out.seal(checksumAt: base + 24, from: base, seed: IndexChecksum.slotSeed ^ UInt64(key))
        }

        init?(_ bytes: IndexBytes, at base: Int, key: Int) {
            guard bytes.isSealed(checksumAt: base + 24, from: base, seed: IndexChecksum.slotSeed ^ UInt64(key)) else {
                return nil
            }
            hash = bytes.get64(base)
            heapOffset = bytes.get32(base + 8)
            length = bytes.get32(base + 12)
            let head = bytes.get32(base + 16)
            let tail = bytes.get32(base + 20)
            self.head = head == 0 ? nil : head - 1
            self.tail = tail == 0 ? nil : tail - 1
        }

        init(hash: UInt64, heapOffset: UInt32, length: UInt32) {
            self.hash = hash
            self.heapOffset = heapOffset
            self.length = length
        }
    }
}

/// Why an index cannot be used; it is rebuilt.
struct IndexDamage: Error, Equatable {
    var detail: String
}
