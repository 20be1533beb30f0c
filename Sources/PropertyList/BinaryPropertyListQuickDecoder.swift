import OrderedCollections
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The first try at reading a whole binary property list: the common file —
/// no container referenced twice, every object well formed, within the
/// limits — decoded in one walk, with none of the bookkeeping that lets
/// `BinaryPropertyListDecoder` say where and why a file is wrong.
///
/// It never reports a problem. At anything it does not expect (a container
/// met a second time, so shared or in a cycle; a bad reference, marker,
/// length or string; two equal keys; the depth or object-count limit) it
/// gives up and returns nil, and the reader decodes the file again with
/// `BinaryPropertyListDecoder`, which finds the problem and says where it
/// is, or reads what is only unusual (shared containers, keys given twice).
/// Whatever it returns is the value that decoder returns for the same bytes
/// (`BinaryPropertyListQuickDecoderTests` compare the two on every binary
/// property list the tests hold and on the fuzzing corpus).
///
/// What it saves, on a 19.4 MB file of records: the pass that finds shared
/// objects before decoding (each string or data object met a second time is
/// found here by one bit per object instead, and kept in a small cache), the
/// per-value count against the limit (each container adds its count once),
/// and a switch on the reference size for each reference (the walk is
/// specialised for it).
struct BinaryPropertyListQuickDecoder<
    Reference: FixedWidthInteger & UnsignedInteger & SendableMetatype, Sink: BinaryPropertyListQuickSink & SendableMetatype
>: ~Copyable {
    /// What the walk makes of the values (`BinaryPropertyListQuickSink`).
    private var sink: Sink
    private let scanner: BinaryPropertyListScanner
    private let base: UnsafeRawPointer
    private let limits: PropertyListLimits
    /// One bit per object: set when a container, a string or a data object
    /// is first met.
    private let met: UnsafeMutableBufferPointer<UInt64>
    /// Strings and data met more than once, by object number modulo the
    /// cache's size: the object number + 1 (0 for an empty slot) and its value.
    private let cachedObjects: UnsafeMutableBufferPointer<Int>
    private let cachedValues: UnsafeMutableBufferPointer<PropertyListValue>
    /// The cache's size: a power of two, at most 1024 and no more than the
    /// objects need (a small file's read would otherwise spend most of its
    /// time making and clearing a cache it barely uses).
    private let cacheSize: Int
    private var keySets = BinaryPropertyListKeySets()
    /// The values produced, counted as `BinaryPropertyListDecoder` counts them.
    private var producedCount = 1
    /// The bytes of strings and data produced, each use of a shared object
    /// counted, as `BinaryPropertyListDecoder` counts them.
    private var producedBytes = 0
    /// Gives back the mapped pages of a range the walk has moved past.
    private let pageRelease: ((Range<Int>) -> Void)?
    /// Everything below this offset has been handed to `pageRelease`.
    private var releasedUpTo = 0
    /// Eight bytes before the end of the offset table's first entry: each
    /// entry is read as the eight bytes ending where it ends, masked.
    private let offsetEntries: UnsafeRawPointer
    private let offsetSize: Int
    /// The low `offsetSize` bytes' bits.
    private let offsetMask: UInt64

    private init(
        scanner: BinaryPropertyListScanner, limits: PropertyListLimits, pageRelease: ((Range<Int>) -> Void)?, partCount: Int = 1
    ) {
        sink = Sink(objectBytes: scanner.objectsEnd, partCount: partCount)
        self.scanner = scanner
        // Safe: a scanner's bytes hold at least a header, an object and a trailer.
        base = scanner.bytes.baseAddress!
        self.limits = limits
        self.pageRelease = pageRelease
        met = .allocate(capacity: (scanner.objectCount + 63) / 64)
        met.initialize(repeating: 0)
        // Safe: objectCount ≥ 1, and 1024 bounds the shift.
        cacheSize = 1 &<< min(10, Int.bitWidth &- (scanner.objectCount &- 1).leadingZeroBitCount)
        cachedObjects = .allocate(capacity: cacheSize)
        cachedObjects.initialize(repeating: 0)
        cachedValues = .allocate(capacity: cacheSize)
        cachedValues.initialize(repeating: .bool(false))
        // Safe: the table starts after the 8-byte header and the first object, so 8 bytes back is in the file.
        offsetEntries = base + (scanner.offsetTableOffset &+ scanner.offsetSize &- 8)
        offsetSize = scanner.offsetSize
        offsetMask = scanner.offsetSize == 8 ? .max : (1 &<< UInt64(8 &* scanner.offsetSize)) &- 1
    }

    deinit {
        met.deallocate()
        cachedObjects.deallocate()
        cachedValues.deinitialize().deallocate()
        sink.release()
    }

    /// The whole property list of `scanner` (which checked all offsets), or
    /// nil when the quick read gave up.
    static func read(
        _ scanner: BinaryPropertyListScanner, limits: PropertyListLimits, pageRelease: ((Range<Int>) -> Void)?,
        splitting: BinaryPropertyListSplitting
    ) -> Sink.Output? {
        var decoder = Self(scanner: scanner, limits: limits, pageRelease: pageRelease)
        // The count is checked as each container adds its own, so a file of
        // more references than the limit is given up on before its values are made.
        guard limits.maximumObjectCount >= 1 else { return nil }
        let top = scanner.topObject, offset = decoder.offset(ofObject: top)
        // A mapped file's pages are given back as one walk passes them: read in one part.
        if pageRelease == nil, splitting.threads > 1, scanner.objectsEnd >= splitting.minimumBytes {
            guard let value = decoder.topContainerInParts(top, at: offset, splitting: splitting) else { return nil }
            return decoder.sink.finish(value)
        }
        guard let value = decoder.value(of: top, at: offset, depth: 0) else { return nil }
        return decoder.sink.finish(value)
    }

    /// The object number in the reference at `position`, which the caller
    /// checked lies in the object area; nil when it names no object.
    @inline(__always)
    private func reference(at position: Int) -> Int? {
        let raw = Reference(bigEndian: base.loadUnaligned(fromByteOffset: position, as: Reference.self))
        guard UInt64(raw) < UInt64(scanner.objectCount) else { return nil }
        return Int(truncatingIfNeeded: raw)
    }

    /// Where `object` (below `objectCount`) starts, as the offset table
    /// says (`BinaryPropertyListScanner.rawOffset(ofObject:)`, which checked
    /// every entry), read with no branch on the entries' size.
    @inline(__always)
    private func offset(ofObject object: Int) -> Int {
        let entry = UInt64(bigEndian: offsetEntries.loadUnaligned(fromByteOffset: object &* offsetSize, as: UInt64.self))
        return Int(truncatingIfNeeded: entry & offsetMask)
    }

    /// Sets `object`'s bit; true when it was set already.
    @inline(__always)
    private func metBefore(_ object: Int) -> Bool {
        // Safe: object < objectCount, so its word < the bitmap's count.
        let word = object &>> 6, bit = UInt64(1) &<< UInt64(object & 63)
        let before = met[word] & bit != 0
        met[word] |= bit
        return before
    }

    /// The value of `object`, which starts at `offset` (its `rawOffset`).
    private mutating func value(of object: Int, at offset: Int, depth: Int) -> Sink.Value? {
        if offset &- releasedUpTo > 2 &* Self.pageReleaseMargin, let pageRelease {
            pageRelease(releasedUpTo..<(offset &- Self.pageReleaseMargin))
            releasedUpTo = offset &- Self.pageReleaseMargin
        }
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        switch marker >> 4 {
        case 0x4, 0x5, 0x6:
            // A string or data object met again is taken from the cache, or
            // decoded and kept there.
            guard metBefore(object) else {
                return sink.bytes(scanner, marker: marker, at: offset, producedBytes: &producedBytes, limits: limits)
            }
            guard let value = cachedBytesValue(of: object, marker: marker, at: offset) else { return nil }
            return sink.repeated(value)
        case 0xA, 0xB, 0xC:
            guard !metBefore(object), depth < limits.maximumDepth else { return nil }
            guard let (count, payload) = references(marker: marker, at: offset, perItem: 1) else { return nil }
            return array(count: count, at: payload, depth: depth)
        case 0xD:
            guard !metBefore(object), depth < limits.maximumDepth else { return nil }
            guard let (count, payload) = references(marker: marker, at: offset, perItem: 2) else { return nil }
            return dictionary(count: count, at: payload, depth: depth)
        default:
            if let common = commonScalar(marker: marker, at: offset) { return sink.scalar(common) }
            guard let scalar = try? Self.scalar(scanner, marker: marker, at: offset) else { return nil }
            return sink.scalar(scalar)
        }
    }

    /// The value of the string or data `object` (marker `marker`, at
    /// `offset`), met before: from the cache, or decoded and kept there.
    @inline(__always)
    private mutating func cachedBytesValue(of object: Int, marker: UInt8, at offset: Int) -> PropertyListValue? {
        let slot = object & (cacheSize &- 1)
        if cachedObjects[slot] == object &+ 1 {
            // Counted again, as an output writes it again.
            producedBytes &+= scanner.storedBytes(ofObjectAt: offset)  // Safe: each at most the object area.
            guard producedBytes <= limits.maximumExpandedSize else { return nil }
            return cachedValues[slot]
        }
        guard let value = BinaryPropertyListQuickBytes.value(scanner, marker: marker, at: offset, producedBytes: &producedBytes, limits: limits)
        else { return nil }
        cachedObjects[slot] = object &+ 1
        cachedValues[slot] = value
        return value
    }

    /// The commonest scalars (booleans, integers of 1, 2, 4 or 8 bytes,
    /// 64-bit reals, finite dates), read where at least 8 bytes follow the
    /// marker; nil for the rest, and anything to refuse, which the careful
    /// decoder's code reads.
    @inline(__always)
    private func commonScalar(marker: UInt8, at offset: Int) -> PropertyListValue? {
        guard offset &+ 9 <= scanner.objectsEnd else { return nil }  // Safe: offset < objectsEnd.
        let payload = offset &+ 1
        switch marker {
        case 0x08: return .bool(false)
        case 0x09: return .bool(true)
        case 0x10: return .integer(PropertyListInteger(UInt64(base.load(fromByteOffset: payload, as: UInt8.self))))
        case 0x11: return .integer(PropertyListInteger(UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: payload, as: UInt16.self)))))
        case 0x12: return .integer(PropertyListInteger(UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: payload, as: UInt32.self)))))
        case 0x13: return .integer(PropertyListInteger(Int64(bigEndian: base.loadUnaligned(fromByteOffset: payload, as: Int64.self))))
        case 0x23: return .real(Double(bitPattern: UInt64(bigEndian: base.loadUnaligned(fromByteOffset: payload, as: UInt64.self))))
        case 0x33:
            let seconds = Double(bitPattern: UInt64(bigEndian: base.loadUnaligned(fromByteOffset: payload, as: UInt64.self)))
            guard seconds.isFinite else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        default: return nil
        }
    }

    // The helpers below are static: a call of a non-mutating method copied
    // the whole decoder (184 bytes, a memcpy) for each value.

    /// A scalar, as `BinaryPropertyListDecoder` decodes it.
    @inline(__always)
    private static func scalar(_ scanner: BinaryPropertyListScanner, marker: UInt8, at offset: Int) throws(PropertyListError) -> PropertyListValue {
        PropertyListValue(try scanner.scalar(marker: marker, at: offset))
    }

    /// The count and the references' start of the container at `offset`,
    /// checked to lie in the object area: `perItem` references per item.
    @inline(__always)
    private func references(marker: UInt8, at offset: Int, perItem: Int) -> (count: Int, payload: Int)? {
        guard let header = try? scanner.lengthAndPayload(marker: marker, at: offset) else { return nil }
        let (size, overflow) = header.length.multipliedReportingOverflow(by: perItem &* MemoryLayout<Reference>.size)
        guard !overflow, size <= scanner.objectsEnd &- header.payload else { return nil }
        return (header.length, header.payload)
    }

    private mutating func array(count: Int, at payload: Int, depth: Int) -> Sink.Value? {
        producedCount &+= count  // Safe: at most the file's size in references.
        guard producedCount <= limits.maximumObjectCount, var members = sink.beginArray(count: count) else { return nil }
        guard appendValues(count: count, at: payload, depth: depth, to: &members) else { return nil }
        return sink.endArray(members)
    }

    /// Appends the values of the `count` references at `position`; false
    /// when one cannot be had. For a sink that takes a dictionary's keys
    /// before its values: `keys` (decoded), or else the key references at
    /// `keyReferences` (a part of the top-level dictionary, whose keys were
    /// checked on the reading thread), each key given before its value.
    @inline(__always)
    private mutating func appendValues(
        count: Int, at start: Int, depth: Int, to members: inout Sink.Members, keys: ContiguousArray<String>? = nil,
        keyReferences: Int? = nil
    ) -> Bool {
        var position = start
        for index in 0..<count {
            if Sink.interleavesKeys {
                if let keys {
                    guard sink.key(keys[index]) else { return false }
                } else if let keyReferences {
                    // Safe: the caller checked the key references lie in the object area.
                    guard let keyObject = reference(at: keyReferences &+ index &* MemoryLayout<Reference>.size),
                        let key = partKey(keyObject), sink.key(key)
                    else { return false }
                }
            }
            guard let child = reference(at: position) else { return false }
            // A common scalar is read here, sparing the call that reads any object.
            let offset = offset(ofObject: child)
            if let scalar = commonScalar(marker: base.load(fromByteOffset: offset, as: UInt8.self), at: offset) {
                sink.append(sink.scalar(scalar), to: &members)
            } else {
                guard let value = value(of: child, at: offset, depth: depth &+ 1) else { return false }
                sink.append(value, to: &members)
            }
            position &+= MemoryLayout<Reference>.size  // Safe: references(…) checked all lie in the object area.
        }
        return true
    }

    private mutating func dictionary(count: Int, at payload: Int, depth: Int) -> Sink.Value? {
        producedCount &+= 2 &* count  // Safe: at most the file's size in references.
        guard producedCount <= limits.maximumObjectCount, let keys = uniqueKeys(count: count, at: payload, depth: depth),
            var members = sink.beginDictionary(count: count)
        else { return nil }
        guard
            appendValues(
                count: count, at: payload &+ count &* MemoryLayout<Reference>.size, depth: depth, to: &members,
                keys: Sink.interleavesKeys ? keys : nil)
        else { return nil }
        return sink.endDictionary(keys: keys, members)
    }

    /// The keys of a dictionary, each a string, none given twice: those of
    /// an earlier dictionary with the same key references, or decoded.
    private mutating func uniqueKeys(count: Int, at payload: Int, depth: Int) -> ContiguousArray<String>? {
        let keySetSlot = BinaryPropertyListKeySets.slot(count: count, keyReferencesAt: payload, in: scanner)
        if let keySetSlot, let reused = keySets.keys(count: count, keyReferencesAt: payload, slot: keySetSlot, in: scanner) {
            producedBytes &+= reused.storedBytes  // Safe: each at most the limit.
            return producedBytes <= limits.maximumExpandedSize ? reused.keys : nil
        }
        let bytesBefore = producedBytes
        guard let decoded = keys(count: count, at: payload, depth: depth), !scanner.hasDuplicate(decoded, keyReferencesAt: payload)
        else { return nil }
        if let keySetSlot {
            keySets.store(decoded, storedBytes: producedBytes &- bytesBefore, referencesStart: payload, slot: keySetSlot)
        }
        return decoded
    }

    /// The keys of a dictionary, each a string.
    private mutating func keys(count: Int, at payload: Int, depth: Int) -> ContiguousArray<String>? {
        var keys: ContiguousArray<String> = []
        keys.reserveCapacity(count)  // Bounded: references(…) checked they lie in the object area.
        var position = payload
        for _ in 0..<count {
            guard let keyObject = reference(at: position), let key = key(keyObject) else { return nil }
            keys.append(key)
            position &+= MemoryLayout<Reference>.size  // Safe: references(…) checked all lie in the object area.
        }
        return keys
    }

    /// The string `object`, a dictionary's key, decoded as a value is (its
    /// bytes counted, a string met before from the cache); nil for any
    /// other kind (the careful decoder refuses it, as a key).
    @inline(__always)
    private mutating func key(_ object: Int) -> String? {
        let offset = offset(ofObject: object)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        guard marker >> 4 == 0x5 || marker >> 4 == 0x6 else { return nil }
        let value =
            metBefore(object)
            ? cachedBytesValue(of: object, marker: marker, at: offset)
            : BinaryPropertyListQuickBytes.value(scanner, marker: marker, at: offset, producedBytes: &producedBytes, limits: limits)
        guard case .string(let key)? = value else { return nil }
        return key
    }

    /// A key of the top-level dictionary given again by a part's thread,
    /// which writes the keys with the values: decoded, not counted (the
    /// reading thread counted and checked the keys).
    private func partKey(_ object: Int) -> String? {
        let offset = offset(ofObject: object)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        var uncounted = 0
        guard marker >> 4 == 0x5 || marker >> 4 == 0x6,
            case .string(let key)? = BinaryPropertyListQuickBytes.value(
                scanner, marker: marker, at: offset, producedBytes: &uncounted, limits: .default)
        else { return nil }
        return key
    }

    private static var pageReleaseMargin: Int { BinaryPropertyListDecoder.pageReleaseMargin }
}

/// The quick read of a large file's top-level container in parts, one part
/// per thread: the values of its first part on the calling thread, each other
/// part's on a thread of its own, each with a decoder of its own (its own
/// bits for the objects met, its own cache and key sets).
///
/// A tree is read as the one-thread walk reads it. What the walk finds by
/// meeting a container twice, a container two parts share (or one part
/// shares with the top), is found here when the parts are joined: an object
/// whose bit two parts set is given up on if it is a container. A string or
/// data object two parts share is decoded once in each, to equal values.
/// Each part counts the values it produces against the limit, and so does
/// their sum.
extension BinaryPropertyListQuickDecoder {
    /// What a part's thread gives back.
    private struct PartResult: Sendable {
        var values: Sink.Part
        /// The part's bits for the objects met, the top object's left clear.
        var met: [UInt64]
        var producedCount: Int
        var producedBytes: Int
    }

    /// The scanner for a part's thread. @unchecked Sendable: the bytes are
    /// only read, by every thread, and outlive the read (`read` joins every
    /// thread before it returns).
    private struct SharedScanner: @unchecked Sendable {
        let scanner: BinaryPropertyListScanner
    }

    /// The top-level container at `offset`, read in up to `splitting.threads`
    /// parts; nil when the quick read gives up, and the one-thread walk's
    /// value when the container is too small to split.
    private mutating func topContainerInParts(_ object: Int, at offset: Int, splitting: BinaryPropertyListSplitting) -> Sink.Value? {
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let isDictionary = marker >> 4 == 0xD
        guard (0xA...0xD).contains(marker >> 4),
            let (count, payload) = references(marker: marker, at: offset, perItem: isDictionary ? 2 : 1)
        else { return value(of: object, at: offset, depth: 0) }
        let partCount = min(splitting.threads, count / max(1, splitting.minimumValuesPerPart))
        guard partCount > 1 else { return value(of: object, at: offset, depth: 0) }
        guard !metBefore(object), limits.maximumDepth > 0 else { return nil }
        producedCount &+= isDictionary ? 2 &* count : count  // Safe: at most the file's size in references.
        guard producedCount <= limits.maximumObjectCount else { return nil }

        let valuesStart = isDictionary ? payload &+ count &* MemoryLayout<Reference>.size : payload
        // Part i holds the values from count·i/partCount up to count·(i+1)/partCount.
        let bounds = (0...partCount).map { count &* $0 / partCount }  // Safe: count ≤ the file's size.
        let shared = SharedScanner(scanner: scanner)
        let limits = self.limits
        var started: [(part: Int, thread: JoinableThread<PartResult?>)] = []
        var partsLeftHere: [Int] = []
        for part in 1..<partCount {
            let range = bounds[part]..<bounds[part &+ 1]
            let thread = JoinableThread<PartResult?>.start {
                Self.readPartOnItsThread(
                    range, valuesStart: valuesStart, keyReferences: isDictionary ? payload : nil, topObject: object,
                    scanner: shared.scanner, limits: limits, partCount: partCount)
            }
            if let thread { started.append((part, thread)) } else { partsLeftHere.append(part) }
        }

        // While the other parts are read: the keys, then the first part.
        var parts: [Sink.Part?] = Array(repeating: nil, count: partCount)
        var keys: ContiguousArray<String>?
        var gaveUp = false
        if isDictionary {
            keys = uniqueKeys(count: count, at: payload, depth: 0)
            gaveUp = keys == nil
        }
        let keyReferences = isDictionary ? payload : nil
        if !gaveUp {
            parts[0] = readPart(0, bounds: bounds, valuesStart: valuesStart, keyReferences: keyReferences, partCount: partCount)
            gaveUp = parts[0] == nil
        }
        // Every thread is joined, whatever happened here: none outlives the bytes.
        for (part, thread) in started {
            guard let result = thread.join() else {
                gaveUp = true
                continue
            }
            guard !gaveUp, absorb(result) else {
                Sink.discard(result.values)
                gaveUp = true
                continue
            }
            parts[part] = result.values
        }
        // Parts no thread could be started for are read here, last.
        for part in partsLeftHere where !gaveUp {
            parts[part] = readPart(part, bounds: bounds, valuesStart: valuesStart, keyReferences: keyReferences, partCount: partCount)
            gaveUp = parts[part] == nil
        }
        guard !gaveUp else {
            for case let part? in parts { Sink.discard(part) }
            return nil
        }
        return sink.container(ofParts: parts.map { $0! }, count: count, keys: keys)
    }

    /// Reads part `part` of the top-level values on this thread, with a
    /// sink of its own.
    private mutating func readPart(
        _ part: Int, bounds: [Int], valuesStart: Int, keyReferences: Int?, partCount: Int
    ) -> Sink.Part? {
        let count = bounds[part &+ 1] &- bounds[part]
        var partSink = Sink(objectBytes: scanner.objectsEnd, partCount: partCount)
        swap(&sink, &partSink)
        defer {
            swap(&sink, &partSink)
            partSink.release()
        }
        var members = sink.beginPart(count: count)
        guard appendPart(bounds[part]..<bounds[part &+ 1], count: count, valuesStart: valuesStart, keyReferences: keyReferences, to: &members)
        else { return nil }
        return sink.finishPart(members)
    }

    /// Appends the values (and, for the flat form, the keys) of `range` of the top-level container.
    @inline(__always)
    private mutating func appendPart(
        _ range: Range<Int>, count: Int, valuesStart: Int, keyReferences: Int?, to members: inout Sink.Members
    ) -> Bool {
        let start = valuesStart &+ range.lowerBound &* MemoryLayout<Reference>.size
        let keysStart = keyReferences.map { $0 &+ range.lowerBound &* MemoryLayout<Reference>.size }
        return appendValues(count: count, at: start, depth: 0, to: &members, keyReferences: keysStart)
    }

    /// One part's values, read on its own thread by a decoder of its own.
    private static func readPartOnItsThread(
        _ range: Range<Int>, valuesStart: Int, keyReferences: Int?, topObject: Int, scanner: BinaryPropertyListScanner,
        limits: PropertyListLimits, partCount: Int
    ) -> PartResult? {
        var decoder = Self(scanner: scanner, limits: limits, pageRelease: nil, partCount: partCount)
        decoder.producedCount = 0
        // The top object is the caller's: met here, it is a cycle.
        _ = decoder.metBefore(topObject)
        var members = decoder.sink.beginPart(count: range.count)
        guard decoder.appendPart(range, count: range.count, valuesStart: valuesStart, keyReferences: keyReferences, to: &members)
        else { return nil }
        var met = Array(decoder.met)
        met[topObject &>> 6] &= ~(UInt64(1) &<< UInt64(topObject & 63))
        return PartResult(
            values: decoder.sink.finishPart(members), met: met, producedCount: decoder.producedCount,
            producedBytes: decoder.producedBytes)
    }

    /// Adds a part's objects met and values produced to this decoder's;
    /// false when the part met a container this decoder (or an earlier part)
    /// met too, or the values or their bytes are over the limit.
    private mutating func absorb(_ part: PartResult) -> Bool {
        producedCount &+= part.producedCount  // Safe: each at most the file's size in references.
        producedBytes &+= part.producedBytes  // Safe: each at most the limit.
        guard producedCount <= limits.maximumObjectCount, producedBytes <= limits.maximumExpandedSize else { return false }
        for word in part.met.indices {
            let both = met[word] & part.met[word]
            if both != 0 {
                var bits = both
                while bits != 0 {
                    let object = word &* 64 &+ bits.trailingZeroBitCount
                    let kind = base.load(fromByteOffset: offset(ofObject: object), as: UInt8.self) >> 4
                    if (0xA...0xD).contains(kind) { return false }
                    bits &= bits &- 1
                }
            }
            met[word] |= part.met[word]
        }
        return true
    }
}

/// How a large file's quick read is split across threads: its top-level
/// container's values in up to `threads` parts, when its object area is at
/// least `minimumBytes` and each part gets at least `minimumValuesPerPart`.
struct BinaryPropertyListSplitting: Sendable {
    var threads: Int
    var minimumBytes: Int
    var minimumValuesPerPart: Int

    /// One thread: the walk of `BinaryPropertyListQuickDecoder` alone.
    static let none = Self(threads: 1, minimumBytes: .max, minimumValuesPerPart: .max)

    /// Up to `threads` parts of at least 16 values, for object areas of 1 MiB
    /// and more: below that, starting a thread costs more than it saves (a
    /// 1 MiB file takes about 2 ms to read on one thread, a thread about
    /// 0.05 ms to start).
    static func upTo(_ threads: Int) -> Self {
        Self(threads: threads, minimumBytes: 1 << 20, minimumValuesPerPart: 16)
    }

    /// Up to `threads` parts of any top-level container of two values or
    /// more, in a file of any size: for the tests and the fuzz target.
    static func everyContainer(threads: Int) -> Self {
        Self(threads: threads, minimumBytes: 0, minimumValuesPerPart: 1)
    }
}

/// The quick read for each reference size a writer uses.
enum BinaryPropertyListQuickRead {
    /// The whole property list of `scanner`, or nil when the quick read
    /// gave up (or the file uses a reference size of 3, 5, 6 or 7 bytes,
    /// which no writer uses): the caller then decodes it carefully.
    static func value(
        of scanner: BinaryPropertyListScanner, limits: PropertyListLimits, pageRelease: ((Range<Int>) -> Void)? = nil,
        splitting: BinaryPropertyListSplitting = .none
    ) -> PropertyListValue? {
        output(of: scanner, into: BinaryPropertyListTreeSink.self, limits: limits, pageRelease: pageRelease, splitting: splitting)
    }

    /// The whole property list of `scanner` written into a `Sink`'s output, or nil when the quick read gave up.
    static func output<Sink: BinaryPropertyListQuickSink & SendableMetatype>(
        of scanner: BinaryPropertyListScanner, into sink: Sink.Type, limits: PropertyListLimits,
        pageRelease: ((Range<Int>) -> Void)? = nil, splitting: BinaryPropertyListSplitting = .none
    ) -> Sink.Output? {
        switch scanner.referenceSize {
        case 1: BinaryPropertyListQuickDecoder<UInt8, Sink>.read(scanner, limits: limits, pageRelease: pageRelease, splitting: splitting)
        case 2: BinaryPropertyListQuickDecoder<UInt16, Sink>.read(scanner, limits: limits, pageRelease: pageRelease, splitting: splitting)
        case 4: BinaryPropertyListQuickDecoder<UInt32, Sink>.read(scanner, limits: limits, pageRelease: pageRelease, splitting: splitting)
        case 8: BinaryPropertyListQuickDecoder<UInt64, Sink>.read(scanner, limits: limits, pageRelease: pageRelease, splitting: splitting)
        default: nil
        }
    }
}

// MARK: The flat form in chunks

extension BinaryPropertyListQuickDecoder where Sink == BinaryPropertyListFlatSink {
    /// The whole property list of `scanner` in the flat form, handed to
    /// `deliver` in chunks as the walk writes them, on this thread, so the
    /// caller can read each while the next is written (libICTKitC's
    /// `ictkit_plist_read_flat_chunks`): a top-level container of
    /// `chunkCount` members or more comes as its tag and count, then its
    /// members in up to `chunkCount` chunks that each end between two
    /// members; any other value comes whole in one chunk. Each chunk is
    /// the caller's, to free with `deallocate()`. The bytes put end to end
    /// are what `read` writes.
    ///
    /// - Returns: false when the quick read gave up (after handing over
    ///   chunks, perhaps) or `deliver` returned false: the caller drops what
    ///   it made of the chunks and reads the file as a whole.
    static func readInChunks(
        _ scanner: BinaryPropertyListScanner, limits: PropertyListLimits, chunkCount: Int,
        deliver: (UnsafeMutableRawBufferPointer) -> Bool
    ) -> Bool {
        var decoder = Self(scanner: scanner, limits: limits, pageRelease: nil, partCount: max(chunkCount, 1))
        guard limits.maximumObjectCount >= 1 else { return false }
        let top = scanner.topObject, offset = decoder.offset(ofObject: top)
        return decoder.topContainerInChunks(top, at: offset, chunkCount: chunkCount, deliver: deliver)
    }

    private mutating func topContainerInChunks(
        _ object: Int, at offset: Int, chunkCount: Int, deliver: (UnsafeMutableRawBufferPointer) -> Bool
    ) -> Bool {
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let isDictionary = marker >> 4 == 0xD
        guard chunkCount > 1, (0xA...0xD).contains(marker >> 4),
            let (count, payload) = references(marker: marker, at: offset, perItem: isDictionary ? 2 : 1), count >= chunkCount
        else {
            guard let value = value(of: object, at: offset, depth: 0) else { return false }
            return deliver(sink.finish(value))
        }
        // What `value(of:at:depth:)` checks of a container before its members.
        guard !metBefore(object), limits.maximumDepth > 0 else { return false }
        producedCount &+= isDictionary ? 2 &* count : count  // Safe: at most the file's size in references.
        guard producedCount <= limits.maximumObjectCount else { return false }
        let valuesStart = isDictionary ? payload &+ count &* MemoryLayout<Reference>.size : payload
        if isDictionary {
            guard uniqueKeys(count: count, at: payload, depth: 0) != nil, sink.beginDictionary(count: count) != nil else { return false }
        } else {
            guard sink.beginArray(count: count) != nil else { return false }
        }
        guard deliver(sink.finish(())) else { return false }
        // Chunk i holds the members from count·i/chunkCount up to count·(i+1)/chunkCount, read by this one
        // decoder in order, so a container met in an earlier chunk is met again here, as in one walk.
        let bounds = (0...chunkCount).map { count &* $0 / chunkCount }  // Safe: count ≤ the file's size.
        let keyReferences = isDictionary ? payload : nil
        for chunk in 0..<chunkCount {
            guard let part = readPart(chunk, bounds: bounds, valuesStart: valuesStart, keyReferences: keyReferences, partCount: chunkCount)
            else { return false }
            if part.start == nil {
                // No bytes to hand over: an empty range of members writes nothing.
                continue
            }
            guard deliver(UnsafeMutableRawBufferPointer(start: part.start, count: part.count)) else { return false }
        }
        return true
    }
}
