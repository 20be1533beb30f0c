import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads binary property lists (`bplist00`), as CoreFoundation writes them.
///
/// Every object kind Apple writes is read: integers of 1 to 16 bytes, 32- and
/// 64-bit reals, dates, data, ASCII and UTF-16 strings (with surrogate
/// pairs), UIDs, arrays, sets (read as arrays) and dictionaries, with 1- to
/// 8-byte offsets and references. Objects shared by several references are
/// decoded once; cycles and over-deep nesting are errors, not crashes.
public struct BinaryPropertyListReader: Sendable {
    /// The limits applied to the input.
    public var limits: PropertyListLimits

    /// Makes a reader with the given limits.
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes the whole property list in `bytes`. Before anything is
    /// decoded, the values the file expands to (each use of a shared object
    /// counted) are counted from its references, a pass that costs a fraction
    /// of decoding.
    ///
    /// - Throws: `PropertyListError` with the byte offset of the problem and the
    ///   key path of the value being read; `limitExceeded(.objectCount)` before
    ///   decoding when the count is over `maximumObjectCount`.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        let scanner = try BinaryPropertyListScanner(bytes, limits: limits)
        var decoder = try BinaryPropertyListDecoder.checkedForWholeFile(scanner: scanner, limits: limits)
        return try decoder.decode(scanner.topObject, depth: 0)
    }

    /// Decodes the whole property list in a mapped file. As decoding moves
    /// through the file, the mapped pages it has passed are given back to the
    /// system, so a large file is held in memory about once — as the decoded
    /// value — rather than twice. A page needed again is read back from the
    /// page cache.
    ///
    /// - Throws: `PropertyListError`, as `read(_:)` on bytes.
    public func read(_ file: MappedFile) throws(PropertyListError) -> PropertyListValue {
        try withExtendedLifetime(file) { () throws(PropertyListError) in
            let scanner = try BinaryPropertyListScanner(file.bytes, limits: limits)
            var decoder = try BinaryPropertyListDecoder.checkedForWholeFile(scanner: scanner, limits: limits)
            decoder.pageRelease = { file.releasePages($0) }
            return try decoder.decode(scanner.topObject, depth: 0)
        }
    }

    /// Decodes the whole property list in `data`.
    ///
    /// - Throws: `PropertyListError`, as `read(_:)` on bytes.
    public func read(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try data.withPropertyListBytes { (bytes) throws(PropertyListError) in try read(bytes) }
    }

    /// The object table of `bytes` as `BinaryPropertyListWriter.encode(objectTable:)`
    /// takes it: each object in the file's order, scalars decoded, arrays and
    /// dictionaries as the numbers of their children. Reads every object once.
    ///
    /// - Returns: nil when the file is not laid out as that writer lays a
    ///   table out: the top object is not object 0, or an object is a set or
    ///   an ordered set.
    /// - Throws: `PropertyListError`, as `read(_:)` does for the same bytes.
    public func readObjectTable(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> [BinaryPropertyListObject]? {
        let scanner = try BinaryPropertyListScanner(bytes, limits: limits)
        guard scanner.topObject == 0 else { return nil }
        // Scalars only: nothing is shared or expanded.
        var decoder = BinaryPropertyListDecoder(scanner: scanner, limits: limits, sharing: .none)
        var table: [BinaryPropertyListObject] = []
        table.reserveCapacity(scanner.objectCount)  // Bounded: the scanner checked the offset table lies in the file.
        for object in 0..<scanner.objectCount {
            let offset = try scanner.offset(ofObject: object)
            let kind = bytes[offset] >> 4
            guard kind != 0xB, kind != 0xC else { return nil }
            guard kind == 0xA || kind == 0xD else {
                table.append(.scalar(try decoder.decode(object, depth: 0)))
                continue
            }
            let header = try scanner.header(at: offset)
            let count = kind == 0xD ? 2 * header.length : header.length
            try scanner.checkExtent(
                payload: header.payload, count: count, itemSize: scanner.referenceSize,
                objectOffset: offset, what: kind == 0xD ? "dictionary" : "array")
            var children: [Int] = []
            children.reserveCapacity(count)  // Bounded: checkExtent proved the references are in the file.
            for index in 0..<count {
                children.append(try scanner.reference(at: header.payload + index * scanner.referenceSize))
            }
            if kind == 0xA {
                table.append(.array(children))
            } else {
                table.append(.dictionary(keys: Array(children[..<header.length]), values: Array(children[header.length...])))
            }
        }
        return table
    }
}

/// The decoding state of one read: which objects are shared, and the values
/// of shared objects already decoded.
struct BinaryPropertyListDecoder {
    private struct SharedObject {
        var value: PropertyListValue
        var producedCount: Int
    }

    private enum SharedState {
        case notStarted
        case inProgress
        case done(SharedObject)
    }

    let scanner: BinaryPropertyListScanner
    let limits: PropertyListLimits
    /// The objects decoded once and reused.
    let sharing: BinaryPropertyListSharedObjects
    /// The state of each shared object, by its slot.
    private var shared: [SharedState]
    private(set) var producedCount = 0
    /// Gives back the mapped pages of a range the decoder has moved past.
    var pageRelease: ((Range<Int>) -> Void)?
    /// Everything below this offset has been handed to `pageRelease`.
    private var releasedUpTo = 0
    /// How far behind the object being decoded pages are kept, and how much
    /// is released at a time: objects are mostly laid out in the order they
    /// are decoded, so little is read again.
    private static let pageReleaseMargin = 1 << 20
    /// The keys of dictionaries decoded before, by a hash of their key
    /// references (see `reusedKeys`).
    private var keySets = [KeySet?](repeating: nil, count: Self.keySetSlots)
    private static let keySetSlots = 64
    /// The largest dictionary whose keys are reused: up to this count an
    /// `OrderedDictionary` keeps its keys in an array alone, with no hash
    /// table, so one array can serve every dictionary with these keys.
    private static let largestReusedKeySet = 15

    /// The keys of a dictionary, distinct strings all, and where its key
    /// references lie in the file.
    private struct KeySet {
        let referencesStart: Int
        let keys: ContiguousArray<String>
    }

    /// Makes a decoder that decodes each object of `sharing` once. With
    /// `.none`, shared objects are decoded at each use (still bounded by the
    /// object-count limit) and cycles end at the depth limit: for the keys
    /// and scalars a walk decodes one at a time.
    init(scanner: BinaryPropertyListScanner, limits: PropertyListLimits, sharing: BinaryPropertyListSharedObjects) {
        self.scanner = scanner
        self.limits = limits
        self.sharing = sharing
        shared = [SharedState](repeating: .notStarted, count: sharing.count)
    }

    /// A decoder for the whole file of `scanner` (which checked all
    /// offsets), after checking that the top object's expansion is within
    /// the object-count limit.
    ///
    /// - Throws: `limitExceeded(.objectCount)` (see `BinaryPropertyListExpansion`).
    static func checkedForWholeFile(
        scanner: BinaryPropertyListScanner, limits: PropertyListLimits
    ) throws(PropertyListError) -> BinaryPropertyListDecoder {
        let sharing = BinaryPropertyListSharedObjects(allObjectsOf: scanner)
        try BinaryPropertyListExpansion.check(scanner.topObject, depth: 0, scanner: scanner, sharing: sharing, limits: limits)
        return BinaryPropertyListDecoder(scanner: scanner, limits: limits, sharing: sharing)
    }

    mutating func decode(_ object: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        if let slot = sharing.slot(object) {
            switch shared[slot] {
            case .done(let sharedObject):
                try countProduced(sharedObject.producedCount, object: object)
                return sharedObject.value
            case .inProgress:
                throw PropertyListError(
                    .cycle, at: .byteOffset(scanner.rawOffset(ofObject: object)),
                    "object \(object) contains itself")
            case .notStarted:
                shared[slot] = .inProgress
                let before = producedCount
                let value = try decodeUnshared(object, depth: depth)
                shared[slot] = .done(SharedObject(value: value, producedCount: producedCount - before))
                return value
            }
        }
        return try decodeUnshared(object, depth: depth)
    }

    @inline(__always)
    private mutating func countProduced(_ count: Int, object: Int) throws(PropertyListError) {
        producedCount &+= count  // Safe: bounded by maximumObjectCount plus one object's count.
        guard producedCount <= limits.maximumObjectCount else { throw objectCountError(object) }
    }

    private func objectCountError(_ object: Int) -> PropertyListError {
        PropertyListError(
            .limitExceeded(.objectCount), at: .byteOffset(scanner.rawOffset(ofObject: object)),
            "the property list expands to more than \(limits.maximumObjectCount) values")
    }

    private mutating func decodeUnshared(_ object: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        try countProduced(1, object: object)
        let offset = try scanner.offset(ofObject: object)
        // The distance first, so that the optional closure is only unwrapped when pages are due.
        if offset - releasedUpTo > 2 * Self.pageReleaseMargin, let pageRelease {
            pageRelease(releasedUpTo..<(offset - Self.pageReleaseMargin))
            releasedUpTo = offset - Self.pageReleaseMargin
        }
        let bytes = scanner.bytes
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x4:
            let header = try scanner.header(at: offset)
            try scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 1, objectOffset: offset, what: "data")
            return .data(Data(UnsafeRawBufferPointer(rebasing: bytes[header.payload..<(header.payload + header.length)])))
        case 0x5:
            let header = try scanner.header(at: offset)
            try scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 1, objectOffset: offset, what: "string")
            return .string(try asciiString(header.payload, count: header.length, objectOffset: offset))
        case 0x6:
            let header = try scanner.header(at: offset)
            try scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 2, objectOffset: offset, what: "string")
            return .string(try utf16String(header.payload, count: header.length, objectOffset: offset))
        case 0xA, 0xB, 0xC:
            return .array(try decodeArray(at: offset, depth: depth))
        case 0xD:
            return .dictionary(try decodeDictionary(at: offset, depth: depth))
        default:
            switch try scanner.scalar(marker: marker, at: offset) {
            case .bool(let value): return .bool(value)
            case .integer(let value): return .integer(value)
            case .real32(let value): return .real32(value)
            case .real(let value): return .real(value)
            case .date(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .uid(let value): return .uid(value)
            }
        }
    }

    private func asciiString(_ start: Int, count: Int, objectOffset: Int) throws(PropertyListError) -> String {
        let raw = UnsafeRawBufferPointer(rebasing: scanner.bytes[start..<(start + count)])
        // Eight bytes at a time; the byte-wise loop below runs only to name a non-ASCII byte.
        var word = 0
        var high: UInt64 = 0
        while word &+ 8 <= count {
            high |= raw.loadUnaligned(fromByteOffset: word, as: UInt64.self)
            word &+= 8
        }
        for index in word..<count { high |= UInt64(raw[index]) }
        if high & 0x8080_8080_8080_8080 == 0 { return String(decoding: raw, as: UTF8.self) }
        for (index, byte) in raw.enumerated() where byte >= 0x80 {
            throw PropertyListError(
                .invalidString, at: .byteOffset(start + index),
                "byte 0x\(BinaryPropertyListScanner.hex(byte)) in an ASCII string (the string object starts at byte \(objectOffset))")
        }
        return String(decoding: raw, as: UTF8.self)
    }

    private func utf16String(_ start: Int, count: Int, objectOffset: Int) throws(PropertyListError) -> String {
        let bytes = scanner.bytes
        var failure: Int?
        let string = String(unsafeUninitializedCapacity: count * 3) { utf8 in
            var written = 0
            var index = 0
            @inline(__always) func unit(_ i: Int) -> UInt32 {
                UInt32(bytes[start + 2 * i]) << 8 | UInt32(bytes[start + 2 * i + 1])
            }
            while index < count {
                var scalar = unit(index)
                index += 1
                if scalar & 0xF800 == 0xD800 {
                    guard scalar < 0xDC00, index < count else { failure = index - 1; return 0 }
                    let low = unit(index)
                    guard low & 0xFC00 == 0xDC00 else { failure = index - 1; return 0 }
                    index += 1
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                // Each UTF-16 unit yields at most 3 UTF-8 bytes and a pair at most 4,
                // so `written` stays within `count * 3`.
                if scalar < 0x80 {
                    utf8[written] = UInt8(scalar); written += 1
                } else if scalar < 0x800 {
                    utf8[written] = UInt8(0xC0 | (scalar >> 6))
                    utf8[written + 1] = UInt8(0x80 | (scalar & 0x3F)); written += 2
                } else if scalar < 0x10000 {
                    utf8[written] = UInt8(0xE0 | (scalar >> 12))
                    utf8[written + 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
                    utf8[written + 2] = UInt8(0x80 | (scalar & 0x3F)); written += 3
                } else {
                    utf8[written] = UInt8(0xF0 | (scalar >> 18))
                    utf8[written + 1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
                    utf8[written + 2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
                    utf8[written + 3] = UInt8(0x80 | (scalar & 0x3F)); written += 4
                }
            }
            return written
        }
        if let failure {
            throw PropertyListError(
                .invalidString, at: .byteOffset(start + 2 * failure),
                "unpaired UTF-16 surrogate in the string at byte \(objectOffset)")
        }
        return string
    }

    private mutating func decodeArray(at offset: Int, depth: Int) throws(PropertyListError) -> [PropertyListValue] {
        let header = try scanner.header(at: offset)
        try scanner.checkExtent(
            payload: header.payload, count: header.length, itemSize: scanner.referenceSize,
            objectOffset: offset, what: "array")
        guard depth < limits.maximumDepth else { throw depthError(offset) }
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(header.length)  // Bounded: checkExtent proved the references are in the file.
        var position = header.payload
        for index in 0..<header.length {
            do {
                let child = try scanner.reference(at: position)
                elements.append(try decode(child, depth: depth + 1))
            } catch {
                throw error.prefixed(by: .index(index))
            }
            position &+= scanner.referenceSize  // Safe: checkExtent covered all references.
        }
        return elements
    }

    private mutating func decodeDictionary(at offset: Int, depth: Int) throws(PropertyListError) -> OrderedDictionary<String, PropertyListValue> {
        let header = try scanner.header(at: offset)
        let count = header.length
        try scanner.checkExtent(
            payload: header.payload, count: count, itemSize: 2 * scanner.referenceSize,
            objectOffset: offset, what: "dictionary")
        guard depth < limits.maximumDepth else { throw depthError(offset) }
        let keySetSlot = keySetSlot(count: count, keyReferencesAt: header.payload)
        if let keySetSlot, let keys = reusedKeys(count: count, keyReferencesAt: header.payload, slot: keySetSlot) {
            return try decodeDictionary(keys: keys, valuesAt: header.payload + count * scanner.referenceSize, depth: depth)
        }
        var keys: ContiguousArray<String> = []
        keys.reserveCapacity(count)  // Bounded: checkExtent proved the references are in the file.
        for index in 0..<count {
            let keyObject = try scanner.reference(at: header.payload + index * scanner.referenceSize)
            let keyValue = try decode(keyObject, depth: depth + 1)
            guard case .string(let key) = keyValue else {
                throw PropertyListError(
                    .invalidKey, at: .byteOffset(scanner.rawOffset(ofObject: keyObject)),
                    "dictionary key \(index) is \(keyValue.kindNameWithArticle), not a string")
            }
            keys.append(key)
        }
        if hasDuplicate(keys, keyReferencesAt: header.payload) {
            let values = try decodeValues(count: count, at: header.payload + count * scanner.referenceSize, keys: keys, depth: depth)
            // Later duplicates win, as CoreFoundation keeps the last value set.
            var dictionary = OrderedDictionary<String, PropertyListValue>(minimumCapacity: count)
            for (key, value) in zip(keys, values) { dictionary[key] = value }
            return dictionary
        }
        if let keySetSlot { keySets[keySetSlot] = KeySet(referencesStart: header.payload, keys: keys) }
        return try decodeDictionary(keys: keys, valuesAt: header.payload + count * scanner.referenceSize, depth: depth)
    }

    /// The dictionary of `keys`, distinct, and the values referenced from `valuesStart`.
    @inline(__always)
    private mutating func decodeDictionary(
        keys: ContiguousArray<String>, valuesAt valuesStart: Int, depth: Int
    ) throws(PropertyListError) -> OrderedDictionary<String, PropertyListValue> {
        OrderedDictionary(uncheckedUniqueKeys: keys, values: try decodeValues(count: keys.count, at: valuesStart, keys: keys, depth: depth))
    }

    private mutating func decodeValues(
        count: Int, at valuesStart: Int, keys: ContiguousArray<String>, depth: Int
    ) throws(PropertyListError) -> ContiguousArray<PropertyListValue> {
        var values: ContiguousArray<PropertyListValue> = []
        values.reserveCapacity(count)
        for index in 0..<count {
            do {
                let valueObject = try scanner.reference(at: valuesStart + index * scanner.referenceSize)
                values.append(try decode(valueObject, depth: depth + 1))
            } catch {
                throw error.prefixed(by: .key(keys[index]))
            }
        }
        return values
    }

    /// Whether the `count` bytes at `first` and at `second` are equal, both
    /// ranges inside `bytes`: eight at a time, then one at a time.
    @inline(__always)
    private static func bytesEqual(_ bytes: UnsafeRawBufferPointer, _ first: Int, _ second: Int, count: Int) -> Bool {
        var index = 0
        while index &+ 8 <= count {
            guard
                bytes.loadUnaligned(fromByteOffset: first &+ index, as: UInt64.self)
                    == bytes.loadUnaligned(fromByteOffset: second &+ index, as: UInt64.self)
            else { return false }
            index &+= 8
        }
        while index < count {
            guard bytes[first &+ index] == bytes[second &+ index] else { return false }
            index &+= 1
        }
        return true
    }

    /// Where the keys of a dictionary of `count` keys referenced from
    /// `payload` are kept for reuse: a slot chosen by a hash of the
    /// references, or nil for a dictionary too large (or empty) to share its keys.
    @inline(__always)
    private func keySetSlot(count: Int, keyReferencesAt payload: Int) -> Int? {
        guard count > 0, count <= Self.largestReusedKeySet else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var position = payload
        for _ in 0..<count {
            hash =
                (hash ^ BinaryPropertyListScanner.readBigEndian(scanner.bytes, at: position, size: scanner.referenceSize))
                &* 0x9E37_79B9_7F4A_7C15
            position &+= scanner.referenceSize  // Safe: the caller checked the references lie in the object area.
        }
        return Int(truncatingIfNeeded: hash >> 58)  // The top 6 bits: 0 ..< keySetSlots.
    }

    /// The keys of an earlier dictionary whose key references are the same
    /// bytes as this one's (so the same key objects, in the same order), or
    /// nil. Writers store each distinct key once, so every dictionary of one
    /// kind of record shares one key array, decoded once, as a keyed
    /// archive's objects share `$class`, `NS.keys` and `NS.objects`. The keys
    /// count as produced values as if decoded again; when that would pass
    /// the limit, nil, so that the slow path reports it at its place.
    @inline(__always)
    private mutating func reusedKeys(count: Int, keyReferencesAt payload: Int, slot: Int) -> ContiguousArray<String>? {
        guard let keySet = keySets[slot], keySet.keys.count == count,
            Self.bytesEqual(scanner.bytes, keySet.referencesStart, payload, count: count &* scanner.referenceSize),
            producedCount &+ count <= limits.maximumObjectCount
        else { return nil }
        producedCount &+= count  // Safe: checked just above.
        return keySet.keys
    }

    /// True when two keys are equal: none when the keys are ASCII in sorted
    /// order (one pass); else pairwise for the small dictionaries that
    /// are most of any file (no hashing), through a set for larger ones.
    /// Equality is Swift's, which treats canonically equivalent spellings as
    /// equal, as the dictionary will; two keys stored as ASCII (where that
    /// cannot happen) are only compared when their lengths agree. The keys'
    /// objects, referenced from `payload`, were checked when they were decoded.
    func hasDuplicate(_ keys: ContiguousArray<String>, keyReferencesAt payload: Int) -> Bool {
        // Keys written in sorted order (as plistlib and many writers write them) are distinct if each
        // precedes the next: one pass over their bytes in file order, with no pairs and no table.
        if keysAscendAsASCII(count: keys.count, keyReferencesAt: payload) { return false }
        guard keys.count <= 16 else {
            if let answer = hasDuplicateASCIIKey(count: keys.count, keyReferencesAt: payload) { return answer }
            var seen = Set<String>(minimumCapacity: keys.count)
            for key in keys where !seen.insert(key).inserted { return true }
            return false
        }
        var asciiKeys: UInt32 = 0
        for index in keys.indices {
            let object = Int(
                truncatingIfNeeded: BinaryPropertyListScanner.readBigEndian(
                    scanner.bytes, at: payload &+ index &* scanner.referenceSize, size: scanner.referenceSize))
            if scanner.bytes[scanner.rawOffset(ofObject: object)] >> 4 == 0x5 { asciiKeys |= 1 << UInt32(index) }
        }
        for index in keys.indices.dropFirst() {
            let key = keys[index]
            let length = key.utf8.count
            let isASCII = asciiKeys & (1 << UInt32(index)) != 0
            for earlier in 0..<index {
                if isASCII, asciiKeys & (1 << UInt32(earlier)) != 0, keys[earlier].utf8.count != length { continue }
                if keys[earlier] == key { return true }
            }
        }
        return false
    }

    /// Whether every key is stored as an ASCII string and each key's bytes
    /// sort strictly before the next key's: then no two are equal (ASCII
    /// spellings are equal as Swift compares them exactly when their bytes
    /// are). False as soon as a key is stored otherwise or out of order,
    /// which the caller then answers the slower way. The keys' objects were
    /// checked when they were decoded.
    private func keysAscendAsASCII(count: Int, keyReferencesAt payload: Int) -> Bool {
        let bytes = scanner.bytes
        guard count > 1, let base = bytes.baseAddress else { return count <= 1 }
        let referenceSize = scanner.referenceSize
        var earlier = (start: 0, count: 0)
        for index in 0..<count {
            let object = Int(
                truncatingIfNeeded: BinaryPropertyListScanner.readBigEndian(
                    bytes, at: payload &+ index &* referenceSize, size: referenceSize))
            let offset = scanner.rawOffset(ofObject: object)
            let marker = bytes[offset]
            guard marker >> 4 == 0x5 else { return false }
            let later: (start: Int, count: Int)
            if marker & 0x0F != 0x0F {
                later = (offset &+ 1, Int(marker & 0x0F))  // Safe: offset lies in the object area.
            } else {
                guard let header = try? scanner.header(at: offset) else { return false }
                later = (header.payload, header.length)
            }
            if index > 0 {
                let common = min(earlier.count, later.count)
                var position = 0
                // Safe: both strings' bytes were checked to lie in the object area when they were decoded.
                while position < common,
                    base.load(fromByteOffset: earlier.start &+ position, as: UInt8.self)
                        == base.load(fromByteOffset: later.start &+ position, as: UInt8.self)
                {
                    position &+= 1
                }
                let precedes =
                    position < common
                    ? base.load(fromByteOffset: earlier.start &+ position, as: UInt8.self)
                        < base.load(fromByteOffset: later.start &+ position, as: UInt8.self)
                    : earlier.count < later.count
                guard precedes else { return false }
            }
            earlier = later
        }
        return true
    }

    /// For a large dictionary whose keys are all stored as ASCII strings (as
    /// every writer stores an ASCII key), whether two are equal, by their
    /// bytes in the file: ASCII spellings are equal as Swift compares them
    /// exactly when their bytes are. An open-addressing table of key numbers
    /// over a multiplicative hash of the bytes, with no `String` hashed (which
    /// took a quarter of a data-heavy conversion's time). Nil when a key is
    /// stored otherwise (UTF-16: "K", the Kelvin sign, equals "K" as Swift
    /// compares), which the caller answers through a set of strings.
    private func hasDuplicateASCIIKey(count: Int, keyReferencesAt payload: Int) -> Bool? {
        var ranges = [(start: Int, count: Int)]()
        ranges.reserveCapacity(count)
        for index in 0..<count {
            let object = Int(
                truncatingIfNeeded: BinaryPropertyListScanner.readBigEndian(
                    scanner.bytes, at: payload &+ index &* scanner.referenceSize, size: scanner.referenceSize))
            let offset = scanner.rawOffset(ofObject: object)
            guard scanner.bytes[offset] >> 4 == 0x5, let header = try? scanner.header(at: offset) else { return nil }
            ranges.append((header.payload, header.length))
        }
        var capacity = 64
        while capacity < count * 2 { capacity <<= 1 }
        let mask = capacity - 1
        // Each slot: the key's number + 1 in the low 32 bits (0: empty), its hash's top 32 bits above, so
        // that keys of one length (which most are) are compared byte by byte only when their hashes agree.
        var slots = [UInt64](repeating: 0, count: capacity)
        let bytes = scanner.bytes
        for index in 0..<count {
            let range = ranges[index]
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(range.count)
            var position = range.start
            let end = range.start + range.count
            while position + 8 <= end {
                hash = (hash ^ bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                position += 8
            }
            while position < end {
                hash = (hash ^ UInt64(bytes[position])) &* 0x1000_0000_01B3
                position += 1
            }
            // MurmurHash3's finaliser: every input bit reaches the slot bits.
            hash = (hash ^ hash >> 33) &* 0xFF51_AFD7_ED55_8CCD
            hash = (hash ^ hash >> 33) &* 0xC4CE_B9FE_1A85_EC53
            hash ^= hash >> 33
            let tag = hash & 0xFFFF_FFFF_0000_0000
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 {
                if slots[slot] & 0xFFFF_FFFF_0000_0000 == tag {
                    let other = ranges[Int(slots[slot] & 0xFFFF_FFFF) - 1]
                    if other.count == range.count,
                        bytes[other.start..<other.start + other.count].elementsEqual(bytes[range.start..<end])
                    {
                        return true
                    }
                }
                slot = (slot + 1) & mask
            }
            slots[slot] = tag | UInt64(index + 1)
        }
        return false
    }

    private func depthError(_ offset: Int) -> PropertyListError {
        PropertyListError(
            .limitExceeded(.depth), at: .byteOffset(offset),
            "containers nest more than \(limits.maximumDepth) deep")
    }
}

extension PropertyListError {
    /// This error with `component` put in front of its key path, as an error
    /// travels out of the container that holds the failing value.
    func prefixed(by component: PropertyListPathComponent) -> PropertyListError {
        var copy = self
        copy.keyPath.components.insert(component, at: 0)
        return copy
    }
}
