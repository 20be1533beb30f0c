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

    /// The most threads one read uses; 1 (or less) reads on the calling
    /// thread alone.
    /// A file whose objects take 1 MiB or more has its top-level array's or
    /// dictionary's values read in parts, one part per thread, with no more
    /// threads than the processors this process may run on. The value read
    /// is the same either way. The default is 4.
    public var maximumThreadCount: Int

    /// Makes a reader with the given limits, using up to `maximumThreadCount`
    /// threads for a large file.
    public init(limits: PropertyListLimits = .default, maximumThreadCount: Int = 4) {
        self.limits = limits
        self.maximumThreadCount = maximumThreadCount
    }

    /// How the quick read of `scanner`'s file is split: only a large file
    /// asks how many processors there are.
    private func splitting(_ scanner: BinaryPropertyListScanner) -> BinaryPropertyListSplitting {
        let splitting = BinaryPropertyListSplitting.upTo(maximumThreadCount)
        guard maximumThreadCount > 1, scanner.objectsEnd >= splitting.minimumBytes else { return .none }
        return .upTo(min(maximumThreadCount, ProcessInfo.processInfo.activeProcessorCount))
    }

    /// Decodes the whole property list in `bytes`. A well-formed file whose
    /// containers are each referenced once (as every writer writes them) is
    /// decoded in one walk (a large one in parts on up to
    /// `maximumThreadCount` threads, which this call starts and joins before
    /// it returns); any other is decoded again with the checks that
    /// say where a problem is, and before anything of it is decoded, the
    /// values it expands to (each use of a shared object counted) are
    /// counted from its references, a pass that costs a fraction of decoding.
    ///
    /// - Throws: `PropertyListError` with the byte offset of the problem and the
    ///   key path of the value being read; `limitExceeded(.objectCount)` before
    ///   decoding when the count is over `maximumObjectCount`.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        let scanner = try BinaryPropertyListScanner(bytes, limits: limits)
        if let value = BinaryPropertyListQuickRead.value(of: scanner, limits: limits, splitting: splitting(scanner)) { return value }
        return try readCarefully(scanner)
    }

    /// The whole property list in `bytes` in the flat form that libICTKitC
    /// gives C callers (`FlatPropertyListTag`), written by the quick read
    /// straight from the object table, with no `PropertyListValue` in
    /// between (a large file in parts, as `read(_:)` reads it); nil where
    /// the quick read gives up (a shared container, a problem to report, a
    /// count of members or bytes the form's 32 bits cannot hold), and the
    /// caller then reads the file with `read(_:)`, which says where a
    /// problem is. The caller frees the bytes with `deallocate()`.
    ///
    /// - Throws: `PropertyListError` for a header or trailer `read(_:)` refuses, with the same place.
    package func readFlat(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> UnsafeMutableRawBufferPointer? {
        let scanner = try BinaryPropertyListScanner(bytes, limits: limits)
        return BinaryPropertyListQuickRead.output(
            of: scanner, into: BinaryPropertyListFlatSink.self, limits: limits, splitting: splitting(scanner))
    }

    /// The whole property list in `bytes` in the flat form, as `readFlat(_:)`
    /// writes it, handed to `deliver` in chunks as they are written, on the
    /// calling thread: a top-level container of `chunkCount` members or more
    /// as its tag and count, then its members in up to `chunkCount` chunks
    /// that each end between two members; any other value in one chunk.
    /// `deliver` owns each chunk (freed with `deallocate()`) and returns false
    /// to stop the read.
    ///
    /// - Returns: false when the quick read gave up, perhaps after chunks
    ///   were handed over, or `deliver` stopped it: the caller drops what it
    ///   made of them and reads the file with `read(_:)` or `readFlat(_:)`,
    ///   which say where a problem is.
    /// - Throws: `PropertyListError` for a header or trailer `read(_:)` refuses, before any chunk.
    package func readFlat(
        _ bytes: UnsafeRawBufferPointer, chunkCount: Int, deliver: (UnsafeMutableRawBufferPointer) -> Bool
    ) throws(PropertyListError) -> Bool {
        let scanner = try BinaryPropertyListScanner(bytes, limits: limits)
        func read<Reference: FixedWidthInteger & UnsignedInteger & SendableMetatype>(_: Reference.Type) -> Bool {
            BinaryPropertyListQuickDecoder<Reference, BinaryPropertyListFlatSink>.readInChunks(
                scanner, limits: limits, chunkCount: chunkCount, deliver: deliver)
        }
        switch scanner.referenceSize {
        case 1: return read(UInt8.self)
        case 2: return read(UInt16.self)
        case 4: return read(UInt32.self)
        case 8: return read(UInt64.self)
        default: return false
        }
    }

    /// Decodes the whole file of `scanner` (which checked all offsets) with
    /// `BinaryPropertyListDecoder`, which says where a problem is; what the
    /// quick read gives up on comes here.
    func readCarefully(_ scanner: BinaryPropertyListScanner) throws(PropertyListError) -> PropertyListValue {
        var decoder = try BinaryPropertyListDecoder.checkedForWholeFile(scanner: scanner, limits: limits)
        return try decoder.decode(scanner.topObject, depth: 0)
    }

    /// Every way of reading `bytes`, for the fuzz target that holds them to
    /// agreeing: the quick read's value (nil where it gave up), the quick
    /// read's value with the top-level container in parts on three threads
    /// (however small the file), and the careful decoder's outcome; nil when
    /// the header or trailer is refused, before any of them runs.
    @_spi(Fuzzing)
    public func readAllWays(
        _ bytes: UnsafeRawBufferPointer
    ) -> (quick: PropertyListValue?, inParts: PropertyListValue?, careful: Result<PropertyListValue, PropertyListError>)? {
        guard let scanner = try? BinaryPropertyListScanner(bytes, limits: limits) else { return nil }
        let quick = BinaryPropertyListQuickRead.value(of: scanner, limits: limits)
        let inParts = BinaryPropertyListQuickRead.value(of: scanner, limits: limits, splitting: .everyContainer(threads: 3))
        return (quick, inParts, Result { () throws(PropertyListError) in try readCarefully(scanner) })
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
            if let value = BinaryPropertyListQuickRead.value(of: scanner, limits: limits, pageRelease: { file.releasePages($0) }) {
                return value
            }
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
        var producedBytes: Int
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
    /// The bytes of strings and data produced, each use of a shared object
    /// counted: what the expansion check found beforehand, kept here for
    /// objects that the offset table gives one place under several numbers.
    private var producedBytes = 0
    /// Gives back the mapped pages of a range the decoder has moved past.
    var pageRelease: ((Range<Int>) -> Void)?
    /// Everything below this offset has been handed to `pageRelease`.
    private var releasedUpTo = 0
    /// How far behind the object being decoded pages are kept, and how much
    /// is released at a time: objects are mostly laid out in the order they
    /// are decoded, so little is read again.
    static let pageReleaseMargin = 1 << 20
    /// The keys of dictionaries decoded before (see `BinaryPropertyListKeySets`).
    private var keySets = BinaryPropertyListKeySets()

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
                try countProducedBytes(sharedObject.producedBytes, at: scanner.rawOffset(ofObject: object))
                return sharedObject.value
            case .inProgress:
                throw PropertyListError(
                    .cycle, at: .byteOffset(scanner.rawOffset(ofObject: object)),
                    "object \(object) contains itself")
            case .notStarted:
                shared[slot] = .inProgress
                let before = producedCount, bytesBefore = producedBytes
                let value = try decodeUnshared(object, depth: depth)
                shared[slot] = .done(
                    SharedObject(value: value, producedCount: producedCount - before, producedBytes: producedBytes - bytesBefore))
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

    /// Adds `count` bytes of strings and data, those of the object at `offset`.
    @inline(__always)
    private mutating func countProducedBytes(_ count: Int, at offset: Int) throws(PropertyListError) {
        producedBytes &+= count  // Safe: bounded by maximumExpandedSize plus one object's bytes.
        guard producedBytes <= limits.maximumExpandedSize else {
            throw PropertyListError(
                .limitExceeded(.expandedSize), at: .byteOffset(offset),
                "the property list expands to more than \(limits.maximumExpandedSize) bytes of strings and data "
                    + "(the maximumExpandedSize limit)")
        }
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
            try countProducedBytes(header.length, at: offset)
            return .data(Data(UnsafeRawBufferPointer(rebasing: bytes[header.payload..<(header.payload + header.length)])))
        case 0x5:
            let header = try scanner.header(at: offset)
            try scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 1, objectOffset: offset, what: "string")
            try countProducedBytes(header.length, at: offset)
            return .string(try scanner.asciiString(header.payload, count: header.length, objectOffset: offset))
        case 0x6:
            let header = try scanner.header(at: offset)
            try scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 2, objectOffset: offset, what: "string")
            try countProducedBytes(2 * header.length, at: offset)
            return .string(try scanner.utf16String(header.payload, count: header.length, objectOffset: offset))
        case 0xA, 0xB, 0xC:
            return .array(try decodeArray(at: offset, depth: depth))
        case 0xD:
            return .dictionary(try decodeDictionary(at: offset, depth: depth))
        default:
            return PropertyListValue(try scanner.scalar(marker: marker, at: offset))
        }
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
        let keySetSlot = BinaryPropertyListKeySets.slot(count: count, keyReferencesAt: header.payload, in: scanner)
        if let keySetSlot, let keys = reusedKeys(count: count, keyReferencesAt: header.payload, slot: keySetSlot) {
            return try decodeDictionary(keys: keys, valuesAt: header.payload + count * scanner.referenceSize, depth: depth)
        }
        var keys: ContiguousArray<String> = []
        keys.reserveCapacity(count)  // Bounded: checkExtent proved the references are in the file.
        let bytesBefore = producedBytes
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
        if scanner.hasDuplicate(keys, keyReferencesAt: header.payload) {
            let values = try decodeValues(count: count, at: header.payload + count * scanner.referenceSize, keys: keys, depth: depth)
            // Later duplicates win, as CoreFoundation keeps the last value set.
            var dictionary = OrderedDictionary<String, PropertyListValue>(minimumCapacity: count)
            for (key, value) in zip(keys, values) { dictionary[key] = value }
            return dictionary
        }
        if let keySetSlot {
            keySets.store(keys, storedBytes: producedBytes - bytesBefore, referencesStart: header.payload, slot: keySetSlot)
        }
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

    /// The keys of an earlier dictionary with the same key references
    /// (`BinaryPropertyListKeySets`), counted as produced values and bytes as
    /// if decoded again; when that would pass a limit, nil, so that the slow
    /// path reports it at its place.
    @inline(__always)
    private mutating func reusedKeys(count: Int, keyReferencesAt payload: Int, slot: Int) -> ContiguousArray<String>? {
        guard producedCount &+ count <= limits.maximumObjectCount,
            let (keys, storedBytes) = keySets.keys(count: count, keyReferencesAt: payload, slot: slot, in: scanner),
            producedBytes &+ storedBytes <= limits.maximumExpandedSize  // Safe: each at most the limit.
        else { return nil }
        producedCount &+= count  // Safe: checked just above.
        producedBytes &+= storedBytes  // Safe: checked just above.
        return keys
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
