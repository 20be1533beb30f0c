#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The keys of the dictionaries a read has decoded, for reuse: writers
/// store each distinct key once, so every dictionary of one kind of record
/// references the same key objects in the same order, and shares one key
/// array, decoded once (as a keyed archive's objects share `$class`,
/// `NS.keys` and `NS.objects`). Kept for dictionaries of up to 15 keys,
/// where an `OrderedDictionary` keeps its keys in an array alone, with no
/// hash table, so one array can serve every dictionary with these keys.
struct BinaryPropertyListKeySets {
    /// The keys of a dictionary, distinct strings all, and where its key
    /// references lie in the file.
    private struct KeySet {
        let referencesStart: Int
        let keys: ContiguousArray<String>
        /// The bytes the key objects store, counted again at each reuse.
        let storedBytes: Int
    }

    private static let slots = 64
    /// The largest dictionary whose keys are reused.
    private static let largestReused = 15
    private var sets = [KeySet?](repeating: nil, count: Self.slots)

    /// Where the keys of a dictionary of `count` keys referenced from
    /// `payload` are kept: a slot chosen by a hash of the references, or nil
    /// for a dictionary too large (or empty) to share its keys. The caller
    /// checked that the references lie in the object area.
    @inline(__always)
    static func slot(count: Int, keyReferencesAt payload: Int, in scanner: BinaryPropertyListScanner) -> Int? {
        guard count > 0, count <= largestReused else { return nil }
        // The references' bytes, eight at a time, whatever the reference size.
        let end = payload &+ count &* scanner.referenceSize  // Safe: the references lie in the object area.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var position = payload
        while position &+ 8 <= end {
            hash = (hash ^ scanner.bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            position &+= 8
        }
        while position < end {
            hash = (hash ^ UInt64(scanner.bytes[position])) &* 0x9E37_79B9_7F4A_7C15
            position &+= 1
        }
        return Int(truncatingIfNeeded: hash >> 58)  // The top 6 bits: 0 ..< slots.
    }

    /// The keys of an earlier dictionary in `slot` whose key references are
    /// the same bytes as this one's (so the same key objects, in the same
    /// order), with the bytes their objects store; or nil.
    @inline(__always)
    func keys(
        count: Int, keyReferencesAt payload: Int, slot: Int, in scanner: BinaryPropertyListScanner
    ) -> (keys: ContiguousArray<String>, storedBytes: Int)? {
        guard let set = sets[slot], set.keys.count == count,
            // Safe: both lie in the object area, so the base is not nil.
            rawBytesEqual(scanner.bytes.baseAddress! + set.referencesStart, scanner.bytes.baseAddress! + payload, count: count &* scanner.referenceSize)
        else { return nil }
        return (set.keys, set.storedBytes)
    }

    /// Keeps `keys`, distinct, whose references lie at `referencesStart`
    /// and whose objects store `storedBytes`, in `slot`.
    mutating func store(_ keys: ContiguousArray<String>, storedBytes: Int, referencesStart: Int, slot: Int) {
        sets[slot] = KeySet(referencesStart: referencesStart, keys: keys, storedBytes: storedBytes)
    }

}

/// The string of `utf8`, which is known to be valid UTF-8 (checked ASCII,
/// or transcoded here from checked UTF-16), made without `String` checking
/// it again; where the system's Swift library is older than that way
/// (Apple's systems before 26), made the checking way.
@inline(__always)
func stringOfValidUTF8(_ utf8: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String {
    #if canImport(Darwin)
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return String(decoding: utf8, as: UTF8.self) }
    #endif
    return String(copying: UTF8Span(unchecked: utf8.span, isKnownASCII: isASCII))
}

/// Whether the `count` bytes at `first` and at `second` are equal: eight at
/// a time, then one at a time (a generic `elementsEqual` walks them one by
/// one through iterators).
@inline(__always)
func rawBytesEqual(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
    var index = 0
    while index &+ 8 <= count {
        guard first.loadUnaligned(fromByteOffset: index, as: UInt64.self) == second.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        else { return false }
        index &+= 8
    }
    while index < count {
        guard first.load(fromByteOffset: index, as: UInt8.self) == second.load(fromByteOffset: index, as: UInt8.self) else { return false }
        index &+= 1
    }
    return true
}

extension BinaryPropertyListScanner {
    /// The ASCII string (marker 0x5) of `count` bytes at `start`, which the
    /// caller checked lie in the object area.
    ///
    /// - Throws: `invalidString` at the first byte that is not ASCII.
    func asciiString(_ start: Int, count: Int, objectOffset: Int) throws(PropertyListError) -> String {
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])
        try checkASCII(start, count: count, objectOffset: objectOffset)
        return stringOfValidUTF8(raw.assumingMemoryBound(to: UInt8.self), isASCII: true)
    }

    /// Checks that the `count` bytes at `start` (which the caller checked
    /// lie in the object area) are ASCII, as an ASCII string's (marker 0x5) must be.
    ///
    /// - Throws: `invalidString` at the first byte that is not ASCII.
    func checkASCII(_ start: Int, count: Int, objectOffset: Int) throws(PropertyListError) {
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])
        // Eight bytes at a time, the last eight overlapping the ones before (four and four for
        // 4 to 7 bytes); the byte-wise loop below runs only to name a non-ASCII byte.
        var high: UInt64 = 0
        if count >= 8 {
            var word = 0
            while word &+ 8 <= count {
                high |= raw.loadUnaligned(fromByteOffset: word, as: UInt64.self)
                word &+= 8
            }
            high |= raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            high = UInt64(raw.loadUnaligned(as: UInt32.self) | raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
        } else {
            for index in 0..<count { high |= UInt64(raw[index]) }
        }
        if high & 0x8080_8080_8080_8080 == 0 { return }
        for (index, byte) in raw.enumerated() where byte >= 0x80 {
            throw PropertyListError(
                .invalidString, at: .byteOffset(start + index),
                "byte 0x\(Self.hex(byte)) in an ASCII string (the string object starts at byte \(objectOffset))")
        }
    }

    /// The UTF-16 string (marker 0x6) of `count` big-endian units at
    /// `start`, which the caller checked lie in the object area.
    ///
    /// - Throws: `invalidString` at an unpaired surrogate.
    func utf16String(_ start: Int, count: Int, objectOffset: Int) throws(PropertyListError) -> String {
        guard count > 0 else { return "" }
        // Safe: the caller checked that the units lie in the object area.
        let read = Self.string(bigEndianUTF16: bytes.baseAddress! + start, count: count)
        guard let string = read.string else { throw Self.unpairedSurrogateError(unitAt: start + 2 * read.unpairedAt, objectOffset: objectOffset) }
        return string
    }

    /// The error for an unpaired surrogate at byte `unitOffset` of the string object at `objectOffset`.
    static func unpairedSurrogateError(unitAt unitOffset: Int, objectOffset: Int) -> PropertyListError {
        PropertyListError(
            .invalidString, at: .byteOffset(unitOffset), "unpaired UTF-16 surrogate in the string at byte \(objectOffset)")
    }

    /// The string of the `count` (> 0) big-endian UTF-16 units at `units`,
    /// or nil and the index of its first unpaired surrogate: transcoded in
    /// one pass into a buffer of three bytes a unit (on the stack for all
    /// but long strings), then copied into its `String`.
    static func string(bigEndianUTF16 units: UnsafeRawPointer, count: Int) -> (string: String?, unpairedAt: Int) {
        var unpairedAt = -1
        // Three bytes a unit at most (a surrogate pair makes four from two), and one more for the last
        // four-byte store. Bounded: count units lie in the caller's bytes.
        let string = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3 &* count &+ 1) { buffer -> String? in
            // Safe: the capacity is above zero.
            let transcoded = transcodeUTF16(units, count: count, into: buffer.baseAddress!)
            unpairedAt = transcoded.unpairedAt
            guard unpairedAt < 0 else { return nil }
            return stringOfValidUTF8(UnsafeBufferPointer(rebasing: buffer[..<transcoded.written]), isASCII: transcoded.isASCII)
        }
        return (string, unpairedAt)
    }

    /// Writes the UTF-8 of the `count` big-endian UTF-16 units at `units`
    /// to `utf8`, which has room for 3 × `count` + 1 bytes: the bytes
    /// written, whether all were ASCII, and the index of the first unpaired
    /// surrogate (-1 when there is none; the bytes are then only those
    /// before it). A unit outside the surrogates is written with no branch
    /// on its length: its one, two and three-byte forms are all made, the
    /// one that fits is stored as four bytes, and the count moves on by its
    /// length.
    @inline(__always)
    static func transcodeUTF16(
        _ units: UnsafeRawPointer, count: Int, into utf8: UnsafeMutablePointer<UInt8>
    ) -> (written: Int, isASCII: Bool, unpairedAt: Int) {
        let output = UnsafeMutableRawPointer(utf8)
        var written = 0
        var index = 0
        var bits: UInt32 = 0
        while index < count {
            let unit = UInt32(UInt16(bigEndian: units.loadUnaligned(fromByteOffset: 2 &* index, as: UInt16.self)))
            index &+= 1
            bits |= unit
            if unit & 0xF800 != 0xD800 {
                let two = (0xC0 | unit >> 6) | (0x80 | unit & 0x3F) << 8
                let three = (0xE0 | unit >> 12) | (0x80 | unit >> 6 & 0x3F) << 8 | (0x80 | unit & 0x3F) << 16
                let form = unit < 0x80 ? unit : unit < 0x800 ? two : three
                output.storeBytes(of: UInt32(littleEndian: form), toByteOffset: written, as: UInt32.self)
                written &+= unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3
                continue
            }
            guard unit < 0xDC00, index < count else { return (written, false, index &- 1) }
            let low = UInt32(UInt16(bigEndian: units.loadUnaligned(fromByteOffset: 2 &* index, as: UInt16.self)))
            guard low & 0xFC00 == 0xDC00 else { return (written, false, index &- 1) }
            index &+= 1
            let scalar = 0x10000 &+ ((unit &- 0xD800) << 10) &+ (low &- 0xDC00)
            let four =
                (0xF0 | scalar >> 18) | (0x80 | scalar >> 12 & 0x3F) << 8 | (0x80 | scalar >> 6 & 0x3F) << 16
                | (0x80 | scalar & 0x3F) << 24
            output.storeBytes(of: UInt32(littleEndian: four), toByteOffset: written, as: UInt32.self)
            written &+= 4
        }
        return (written, bits < 0x80, -1)
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
                truncatingIfNeeded: Self.readBigEndian(
                    bytes, at: payload &+ index &* referenceSize, size: referenceSize))
            if bytes[rawOffset(ofObject: object)] >> 4 == 0x5 { asciiKeys |= 1 << UInt32(index) }
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
        guard count > 1, let base = bytes.baseAddress else { return count <= 1 }
        let referenceSize = referenceSize
        var earlier = (start: 0, count: 0)
        for index in 0..<count {
            let object = Int(
                truncatingIfNeeded: Self.readBigEndian(
                    bytes, at: payload &+ index &* referenceSize, size: referenceSize))
            let offset = rawOffset(ofObject: object)
            let marker = bytes[offset]
            guard marker >> 4 == 0x5 else { return false }
            let later: (start: Int, count: Int)
            if marker & 0x0F != 0x0F {
                later = (offset &+ 1, Int(marker & 0x0F))  // Safe: offset lies in the object area.
            } else {
                guard let header = try? self.header(at: offset) else { return false }
                later = (header.payload, header.length)
            }
            // Safe: both strings' bytes were checked to lie in the object area when they were decoded.
            guard index == 0 || Self.bytes(earlier, precede: later, in: base) else { return false }
            earlier = later
        }
        return true
    }

    /// Whether the bytes `earlier` sort strictly before the bytes `later`
    /// (byte by byte, a prefix first), both of which lie in the file at `base`.
    @inline(__always)
    static func bytes(
        _ earlier: (start: Int, count: Int), precede later: (start: Int, count: Int), in base: UnsafeRawPointer
    ) -> Bool {
        let common = min(earlier.count, later.count)
        var position = 0
        // Eight bytes at a time while they agree (keys often share a long prefix).
        while position &+ 8 <= common,
            base.loadUnaligned(fromByteOffset: earlier.start &+ position, as: UInt64.self)
                == base.loadUnaligned(fromByteOffset: later.start &+ position, as: UInt64.self)
        {
            position &+= 8
        }
        while position < common,
            base.load(fromByteOffset: earlier.start &+ position, as: UInt8.self)
                == base.load(fromByteOffset: later.start &+ position, as: UInt8.self)
        {
            position &+= 1
        }
        return position < common
            ? base.load(fromByteOffset: earlier.start &+ position, as: UInt8.self)
                < base.load(fromByteOffset: later.start &+ position, as: UInt8.self)
            : earlier.count < later.count
    }

    /// For a large dictionary whose keys are all stored as ASCII strings (as
    /// every writer stores an ASCII key), whether two are equal, by their
    /// bytes in the file: ASCII spellings are equal as Swift compares them
    /// exactly when their bytes are. An open-addressing table of key numbers
    /// over a multiplicative hash of the bytes, with no `String` hashed (which
    /// took a quarter of a data-heavy conversion's time). Nil when a key is
    /// stored otherwise (UTF-16: "K", the Kelvin sign, equals "K" as Swift
    /// compares), which the caller answers through a set of strings.
    func hasDuplicateASCIIKey(count: Int, keyReferencesAt payload: Int) -> Bool? {
        var ranges = [(start: Int, count: Int)]()
        ranges.reserveCapacity(count)
        for index in 0..<count {
            let object = Int(
                truncatingIfNeeded: Self.readBigEndian(
                    bytes, at: payload &+ index &* referenceSize, size: referenceSize))
            let offset = rawOffset(ofObject: object)
            guard bytes[offset] >> 4 == 0x5, let header = try? self.header(at: offset) else { return nil }
            ranges.append((header.payload, header.length))
        }
        var capacity = 64
        while capacity < count * 2 { capacity <<= 1 }
        let mask = capacity - 1
        // Each slot: the key's number + 1 in the low 32 bits (0: empty), its hash's top 32 bits above, so
        // that keys of one length (which most are) are compared byte by byte only when their hashes agree.
        var slots = [UInt64](repeating: 0, count: capacity)
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
}
